/* vktune runtime C API: load a kernel database snapshot and pick a variant per problem.
   Thread-safety: a loaded snapshot is immutable; vktune_select may run on many threads at
   once. No function aborts or throws; failures come back as status codes and messages. */
#ifndef VKTUNE_RUNTIME_H_
#define VKTUNE_RUNTIME_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct vktune_snapshot vktune_snapshot;

/* Same values as vktune::runtime::Status, DeviceMatch, ShapeMatch and DeviceType. */
enum { VKTUNE_OK = 0, VKTUNE_INVALID_QUERY = 1, VKTUNE_NO_MATCH = 2 };
enum {
  VKTUNE_DEVICE_EXACT = 0,
  VKTUNE_DEVICE_OTHER_DRIVER = 1,
  VKTUNE_DEVICE_SAME_VENDOR_TYPE = 2,
  VKTUNE_DEVICE_BUILTIN = 3
};
enum { VKTUNE_SHAPE_EXACT = 0, VKTUNE_SHAPE_NEAREST = 1, VKTUNE_SHAPE_BUILTIN = 2, VKTUNE_SHAPE_RANKED = 3 };
/* VkPhysicalDeviceType values. */
enum {
  VKTUNE_TYPE_OTHER = 0,
  VKTUNE_TYPE_INTEGRATED = 1,
  VKTUNE_TYPE_DISCRETE = 2,
  VKTUNE_TYPE_VIRTUAL = 3,
  VKTUNE_TYPE_CPU = 4
};

typedef struct vktune_device_query {
  uint32_t vendor_id;
  uint32_t device_id;
  uint32_t driver_id;
  uint32_t driver_version;
  int device_type; /* VKTUNE_TYPE_* */
  uint8_t pipeline_cache_uuid[16];
  const char* name; /* may be NULL */
} vktune_device_query;

typedef struct vktune_problem_query {
  const char* op;    /* "q4gsw" or "rms_norm"; NULL is an invalid query */
  const char* dtype; /* "f32"; NULL means "f32" */
  uint32_t m, n, k, group_size;
} vktune_problem_query;

/* Every pointer points into the snapshot (or static storage) and stays valid until
   vktune_snapshot_free; strings are NUL-terminated, never NULL (empty when absent). */
typedef struct vktune_selection {
  int status; /* VKTUNE_OK, VKTUNE_INVALID_QUERY, VKTUNE_NO_MATCH */
  const char* error;
  const char* family;
  const char* variant_key;
  const char* knobs_json;
  const char* constraints_json;
  const char* layout;
  uint32_t workgroup_size;
  const uint8_t* spirv; /* NULL when absent */
  size_t spirv_size;
  int has_median;
  double median_ns;
  int device_match; /* VKTUNE_DEVICE_* */
  int shape_match;  /* VKTUNE_SHAPE_* */
  double shape_distance;
  const char* matched_device_name;
  uint32_t matched_m, matched_n, matched_k, matched_group_size;
} vktune_selection;

/* Loads a .db or exported .json file. Returns NULL on failure and writes a NUL-terminated
   message into err (truncated to errlen; err may be NULL). */
vktune_snapshot* vktune_snapshot_load(const char* path, char* err, size_t errlen);

/* Fills *out and returns out->status. A NULL snapshot yields builtin routing; a NULL query
   or out pointer returns VKTUNE_INVALID_QUERY (out is left untouched when NULL). */
int vktune_select(const vktune_snapshot* snapshot, const vktune_device_query* device,
                  const vktune_problem_query* problem, vktune_selection* out);

/* Frees a snapshot from vktune_snapshot_load; NULL is a no-op. Selections die with it. */
void vktune_snapshot_free(vktune_snapshot* snapshot);

#ifdef __cplusplus
}
#endif

#endif /* VKTUNE_RUNTIME_H_ */
