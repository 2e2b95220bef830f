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
  if (!s.has_median || s.median_ns != 1000.0 || s.spirv == NULL || s.spirv_size != 6) return __LINE__;
  p.m = 0;
  if (vktune_select(snap, tuned, &p, &s) != VKTUNE_INVALID_QUERY || s.error[0] == '\0') return __LINE__;
  vktune_snapshot_free(snap);
  if (vktune_snapshot_load("/nonexistent/x.db", err, sizeof err) != NULL) return __LINE__;
  if (strstr(err, "/nonexistent/x.db") == NULL) return __LINE__;
  return 0;
}
