/* Compiled as C: proves vktune_runtime.h is valid C and usable without C++. */
#include <stdio.h>
#include <string.h>

#include "runtime/vktune_runtime.h"

/* Loads `path`, selects a decode-shaped q4gsw problem on an unknown device and on `uuid`'s
   device; returns 0 on success, else a line number. */
int vktune_c_smoke(const char* path, const vktune_device_query* tuned) {
  char err[256];
  vktune_snapshot* snap = vktune_snapshot_load(path, err, sizeof err);
  if (snap == NULL) return __LINE__;
  vktune_device_query unknown;
  memset(&unknown, 0, sizeof unknown);
  vktune_problem_query p = {"q4gsw", "f32", 1, 4096, 4096, 32};
  vktune_selection s;
  if (vktune_select(snap, &unknown, &p, &s) != VKTUNE_OK) return __LINE__;
  if (s.device_match != VKTUNE_DEVICE_BUILTIN) return __LINE__;
  if (strcmp(s.variant_key, "q4gsw_gemv[layout=raw,wg=64,rows=1,load=u32,reduce=shared]") != 0) return __LINE__;
  if (vktune_select(snap, tuned, &p, &s) != VKTUNE_OK) return __LINE__;
  if (s.device_match != VKTUNE_DEVICE_EXACT || s.shape_match != VKTUNE_SHAPE_EXACT) return __LINE__;
  if (!s.has_median || s.median_ns != 1000.0 || s.spirv == NULL || s.spirv_size != 24) return __LINE__;
  /* The same answer with its specialisation (the gemv winner has none). */
  vktune_selection_ext ext = {.struct_size = sizeof ext, .specialization_count = 9};
  if (vktune_select_ext(snap, tuned, &p, &s, &ext) != VKTUNE_OK) return __LINE__;
  if (s.spirv_size != 24 || ext.specialization != NULL || ext.specialization_count != 0) return __LINE__;
  p.m = 0;
  if (vktune_select(snap, tuned, &p, &s) != VKTUNE_INVALID_QUERY || s.error[0] == '\0') return __LINE__;
  vktune_snapshot_free(snap);
  if (vktune_snapshot_load("/nonexistent/x.db", err, sizeof err) != NULL) return __LINE__;
  if (strstr(err, "/nonexistent/x.db") == NULL) return __LINE__;
  return 0;
}

/* The dispatch contract from C: plan a built-in answer, refuse a misfit, prepack. Returns 0 on
   success, else a line number. */
int vktune_c_dispatch_smoke(void) {
  vktune_device_query unknown;
  memset(&unknown, 0, sizeof unknown);
  vktune_problem_query p = {"q4gsw", "f32", 2, 64, 256, 32};
  vktune_selection s;
  if (vktune_select(NULL, &unknown, &p, &s) != VKTUNE_OK) return __LINE__;
  const uint32_t grid[3] = {65535, 65535, 65535};
  vktune_dispatch d;
  if (vktune_plan_dispatch(&s, &p, grid, &d) != VKTUNE_OK) return __LINE__;
  if (d.binding_count != 6 || strcmp(d.bindings[1].name, "weight") != 0) return __LINE__;
  if (d.bindings[1].bytes != 64 * 128 || d.bindings[0].bytes != 2 * 256 * 4) return __LINE__;
  if (d.push_constant_size == 0 || d.groups[0] == 0 || strcmp(d.layout, "raw") != 0) return __LINE__;
  vktune_problem_query misfit = {"q4gsw", "f32", 2, 64, 4100, 4};
  if (vktune_plan_dispatch(&s, &misfit, grid, &d) != VKTUNE_INVALID_QUERY) return __LINE__;
  if (strstr(d.error, "K=4100") == NULL) return __LINE__;
  if (vktune_plan_dispatch(NULL, &p, grid, &d) != VKTUNE_INVALID_QUERY) return __LINE__;

  static uint8_t raw[64 * 128], packed[64 * 256];
  char err[128];
  if (vktune_prepacked_size("packed", 64, 256) > sizeof packed) return __LINE__;
  if (vktune_prepack("packed", raw, sizeof raw, 64, 256, packed, sizeof packed, err, sizeof err) !=
      VKTUNE_OK) return __LINE__;
  if (vktune_prepack("packed", raw, sizeof raw, 64, 256, packed, 16, err, sizeof err) !=
      VKTUNE_INVALID_QUERY || strstr(err, "needs") == NULL) return __LINE__;
  if (vktune_prepack("tiles", raw, sizeof raw, 64, 256, packed, sizeof packed, err, sizeof err) !=
      VKTUNE_INVALID_QUERY) return __LINE__;
  /* packed_s16 carries the scales: 8 groups x 8 octets x (8 blocks + 1 scale word) x 16. */
  static float scales[8 * 64];
  if (vktune_prepacked_weight_size("packed_s16", 64, 256, 32) != 8 * 8 * 9 * 16) return __LINE__;
  if (vktune_prepack_weight("packed_s16", raw, sizeof raw, scales, 8 * 64, 64, 256, 32, packed,
                            sizeof packed, err, sizeof err) != VKTUNE_OK) return __LINE__;
  if (vktune_prepack_weight("packed_s16", raw, sizeof raw, scales, 7, 64, 256, 32, packed,
                            sizeof packed, err, sizeof err) != VKTUNE_INVALID_QUERY) return __LINE__;
  if (vktune_prepack("packed_s16", raw, sizeof raw, 64, 256, packed, sizeof packed, err,
                     sizeof err) != VKTUNE_INVALID_QUERY || strstr(err, "scales") == NULL)
    return __LINE__;
  return 0;
}
