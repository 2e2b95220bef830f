/* The same in C, through <vktune/runtime/vktune_runtime.h>. Usage: select_and_plan_c DB M N K GS */
#include <vktune/runtime/vktune_runtime.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char** argv) {
  if (argc != 6) {
    fprintf(stderr, "usage: %s DB M N K GS\n", argv[0]);
    return 2;
  }
  char err[512];
  vktune_snapshot* db = vktune_snapshot_load(argv[1], err, sizeof err);
  if (db == NULL) {
    fprintf(stderr, "%s\n", err);
    return 1;
  }
  vktune_device_query device;
  memset(&device, 0, sizeof device);
  device.vendor_id = 0x10005; /* lavapipe's ids */
  device.driver_id = 13;
  device.device_type = VKTUNE_TYPE_CPU;
  vktune_problem_query problem = {"q4gsw", "f32", (uint32_t)atoi(argv[2]), (uint32_t)atoi(argv[3]),
                                  (uint32_t)atoi(argv[4]), (uint32_t)atoi(argv[5])};
  vktune_selection s;
  if (vktune_select(db, &device, &problem, &s) != VKTUNE_OK) {
    fprintf(stderr, "select: %s\n", s.error);
    return 1;
  }
  const uint32_t grid[3] = {65535, 65535, 65535};
  vktune_dispatch plan;
  if (vktune_plan_dispatch(&s, &problem, grid, &plan) != VKTUNE_OK) {
    fprintf(stderr, "plan: %s\n", plan.error);
    return 1;
  }
  printf("%s (%s): %u bindings, groups %u x %u x %u\n", s.variant_key, plan.layout,
         plan.binding_count, plan.groups[0], plan.groups[1], plan.groups[2]);
  const size_t raw_size = (size_t)problem.n * (problem.k / 2);
  const char* layout = strcmp(plan.layout, "none") == 0 ? "raw" : plan.layout;
  const size_t size = (size_t)vktune_prepacked_size(layout, problem.n, problem.k);
  uint8_t* raw = calloc(raw_size, 1);
  uint8_t* packed = malloc(size);
  const int status = vktune_prepack(layout, raw, raw_size, problem.n, problem.k, packed, size, err,
                                    sizeof err);
  free(raw);
  free(packed);
  vktune_snapshot_free(db);
  if (status != VKTUNE_OK) {
    fprintf(stderr, "prepack: %s\n", err);
    return 1;
  }
  printf("  weights prepacked: %zu bytes\n", size);
  return 0;
}
