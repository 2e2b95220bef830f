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
  const char* op;    /* an op of docs/variants.md's "Problems" ("q4gsw", "sdpa", ...); NULL is
                        an invalid query */
  const char* dtype; /* "f32" or "f16"; NULL means "f32" */
  uint32_t m, n, k, group_size; /* what each means per op: docs/variants.md "Problems" */
  /* The ops with heads only (sdpa: query and KV heads, heads a multiple of kv_heads). Last, so
     an initialiser of an op without heads may leave them out (0). */
  uint32_t heads, kv_heads;
} vktune_problem_query;

/* One specialisation constant of a selection's SPIR-V: the shader's constant_id (or
   local_size_x_id) and the value it takes, for a VkSpecializationMapEntry
   {constant_id, offset, 4} over the values packed as uint32_t. */
typedef struct vktune_spec_constant {
  uint32_t constant_id;
  uint32_t value;
} vktune_spec_constant;

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
  const char* source; /* the database that answered (path or memory label); "" for built-ins */
  int layer;          /* its layer, 0 = top (vktune_snapshot_layer); -1 for built-ins */
  /* sdpa: the head counts it was tuned at (the nearest tuned ones where the query's were not
     tuned); 0 for other ops and built-ins. */
  uint32_t matched_heads, matched_kv_heads;
} vktune_selection;

/* What a selection holds beyond vktune_selection, whose layout stays as it was so that code
   compiled against an older header keeps working. This struct grows only at its end: the
   caller sets struct_size to sizeof(vktune_selection_ext) as its header declares it, and
   vktune_select_ext writes only the fields that size covers. */
typedef struct vktune_selection_ext {
  size_t struct_size;
  /* The specialisation constants the SPIR-V takes at pipeline creation, in ascending
     constant_id (NULL and 0 when it has none), pointing into the snapshot like the selection's
     strings: an engine passes every one in the stage's VkSpecializationInfo, or the module runs
     its shader's default sizes, not this variant. */
  const vktune_spec_constant* specialization;
  size_t specialization_count;
} vktune_selection_ext;

/* Loads a .db or exported .json file, either one possibly zstd-compressed (told by content, not
   by name). Returns NULL on failure and writes a NUL-terminated
   message into err (truncated to errlen; err may be NULL). */
vktune_snapshot* vktune_snapshot_load(const char* path, char* err, size_t errlen);

/* The same from `size` bytes of a (possibly zstd-compressed) .db or .json file in memory (an application asset); the bytes
   are copied, not kept. `label` (may be NULL: "memory") names it in errors and in each
   selection's `source`. A truncated or damaged buffer returns NULL with a message. */
vktune_snapshot* vktune_snapshot_load_memory(const void* data, size_t size, const char* label,
                                             char* err, size_t errlen);

/* A snapshot answering from `count` snapshots as layers: top_first[0] (the user's database)
   over the last (the system database the application ships). The closest answer wins (by
   device, then shape); between equally close ones the upper layer's; a selection's `layer`
   and `source` say which answered. The inputs stay the caller's (free them whenever): the
   result shares their data. Layered snapshots' own layers are flattened in place. */
vktune_snapshot* vktune_snapshot_layer(const vktune_snapshot* const* top_first, size_t count,
                                       char* err, size_t errlen);

/* vktune_snapshot_layer with the environment applied (runtime/environment.h): the databases
   VKTUNE_DB names loaded over top_first (count may be 0), VKTUNE_FORCE_BUILTIN=1 and
   VKTUNE_LOG=1 (one line per selection on stderr) honoured. NULL with a message when a
   VKTUNE_DB path does not load. */
vktune_snapshot* vktune_snapshot_from_environment(const vktune_snapshot* const* top_first,
                                                  size_t count, char* err, size_t errlen);

/* Fills *out and returns out->status. A NULL snapshot yields builtin routing; a NULL query
   or out pointer returns VKTUNE_INVALID_QUERY (out is left untouched when NULL). */
int vktune_select(const vktune_snapshot* snapshot, const vktune_device_query* device,
                  const vktune_problem_query* problem, vktune_selection* out);

/* vktune_select, and the rest of the answer in *ext (left untouched when NULL): an engine that
   creates pipelines from the selection's SPIR-V calls this one, since a variant's sizes may be
   specialisation constants (vktune_selection_ext). An ext whose struct_size is below its first
   version's (the fields through specialization_count; 0: not set) is an invalid query, with
   out->error saying so. */
int vktune_select_ext(const vktune_snapshot* snapshot, const vktune_device_query* device,
                      const vktune_problem_query* problem, vktune_selection* out,
                      vktune_selection_ext* ext);

/* The dispatch contract (runtime/dispatch.h): what an engine needs to run a selection with its
   own Vulkan code. Binding names point to static storage. */
#define VKTUNE_MAX_BINDINGS 8
#define VKTUNE_MAX_PUSH_BYTES 128

typedef struct vktune_binding {
  uint32_t binding;
  const char* name;     /* "x", "weight", "scales", "bias", "w", "out", "workspace" */
  uint64_t bytes;       /* bytes of the tensor to upload; 0: unused, still bind a buffer */
  uint64_t alloc_bytes; /* bytes to allocate and bind (rounded up to 16, at least 16) */
  int written;          /* the dispatch writes it */
  int zero_once;        /* zero before the first dispatch (split-K workspace counters);
                           the kernel keeps it zero; one buffer per plan, never shared */
} vktune_binding;

/* Device features a variant needs (vktune_dispatch.required_features), the bits of
   kernels/requirements.h's Feature; vktune_feature_name gives each one's Vulkan name. */
enum {
  VKTUNE_FEATURE_STORAGE_BUFFER_16BIT = 1u << 0, /* VkPhysicalDeviceVulkan11Features::
                                                     storageBuffer16BitAccess */
  VKTUNE_FEATURE_SHADER_FLOAT16 = 1u << 1,       /* VkPhysicalDeviceVulkan12Features::shaderFloat16 */
  VKTUNE_FEATURE_SUBGROUP_ARITHMETIC = 1u << 2,  /* VK_SUBGROUP_FEATURE_ARITHMETIC_BIT in
                                                     subgroupSupportedOperations, compute stage */
  VKTUNE_FEATURE_COOPERATIVE_MATRIX_NV = 1u << 3, /* extension VK_NV_cooperative_matrix, its
                                                     cooperativeMatrix feature enabled and the
                                                     16x16x16 f16*f16+f32 shape supported */
  /* Vulkan 1.3, VkPhysicalDeviceVulkan13Features::shaderIntegerDotProduct */
  VKTUNE_FEATURE_SHADER_INTEGER_DOT_PRODUCT = 1u << 4,
  /* Vulkan 1.3, extensions VK_NV_cooperative_matrix2 (features cooperativeMatrixWorkgroupScope,
     FlexibleDimensions, TensorAddressing, BlockLoads, PerElementOperations) and
     VK_KHR_cooperative_matrix (cooperativeMatrix), and VkPhysicalDeviceVulkan12Features::
     bufferDeviceAddress: the SPIR-V targets Vulkan 1.3 */
  VKTUNE_FEATURE_COOPERATIVE_MATRIX2_NV = 1u << 5,
  /* extension VK_KHR_cooperative_matrix, its cooperativeMatrix feature enabled and the
     16x16x16 f16*f16+f32 subgroup shape supported */
  VKTUNE_FEATURE_COOPERATIVE_MATRIX_KHR = 1u << 6,
  VKTUNE_FEATURE_SUBGROUP_SHUFFLE = 1u << 7 /* VK_SUBGROUP_FEATURE_SHUFFLE_BIT in
                                               subgroupSupportedOperations, compute stage */
};

typedef struct vktune_dispatch {
  int status; /* VKTUNE_OK or VKTUNE_INVALID_QUERY */
  char error[256];
  uint8_t push_constants[VKTUNE_MAX_PUSH_BYTES];
  uint32_t push_constant_size;
  vktune_binding bindings[VKTUNE_MAX_BINDINGS];
  uint32_t binding_count;
  uint32_t groups[3];
  uint32_t workgroup_size;
  uint32_t shared_memory_bytes; /* the device's maxComputeSharedMemorySize must hold it */
  char layout[16]; /* the weight layout to prepack to: "raw", "packed", "packed_s16" or "none" */
  /* What the engine's VkDevice must support and enable: VKTUNE_FEATURE_* bits (0: nothing
     beyond Vulkan 1.2), the subgroup size the shader assumes (0: any), and a count the device's
     subgroup size must divide (0: any). */
  uint32_t required_features;
  uint32_t required_subgroup_size;
  uint32_t subgroup_size_divides;
  /* Each output's allowed error relative to its bound sum_k |x w|: the tuner's correctness
     gate's tolerance for the variant (larger where it rounds x to int8 or computes in fp16). */
  double tolerance;
} vktune_dispatch;

/* The Vulkan name of one VKTUNE_FEATURE_* bit ("storageBuffer16BitAccess", "shaderFloat16",
   "VK_SUBGROUP_FEATURE_ARITHMETIC_BIT", "VK_NV_cooperative_matrix", "shaderIntegerDotProduct",
   "VK_NV_cooperative_matrix2", "VK_KHR_cooperative_matrix", "VK_SUBGROUP_FEATURE_SHUFFLE_BIT");
   "" for anything else.
   Static storage. */
const char* vktune_feature_name(uint32_t feature_bit);

/* Plans `selection` (an ok answer of vktune_select) on `problem` for a device with
   `max_workgroup_count` (maxComputeWorkGroupCount). Fills *out and returns out->status; a
   selection the problem does not fit, or NULL arguments, give VKTUNE_INVALID_QUERY. */
int vktune_plan_dispatch(const vktune_selection* selection, const vktune_problem_query* problem,
                         const uint32_t max_workgroup_count[3], vktune_dispatch* out);

/* Bytes of an N x K weight in `layout` ("raw" or "packed"); 0 for any other layout. */
uint64_t vktune_prepacked_size(const char* layout, uint32_t n, uint32_t k);

/* Raw int4 weights [N, K/2] into `layout` ("raw" or "packed"), written to out (out_size >=
   vktune_prepacked_size). Returns VKTUNE_OK, or VKTUNE_INVALID_QUERY with a message in err
   (packed_s16 included: it needs the scales, see vktune_prepack_weight). */
int vktune_prepack(const char* layout, const uint8_t* raw, size_t raw_size, uint32_t n,
                   uint32_t k, uint8_t* out, size_t out_size, char* err, size_t errlen);

/* Bytes of an N x K weight with `group_size` in any layout ("raw", "packed", "packed_s16":
   that one holds the fp16 scales too); 0 for another layout or a group size it cannot hold. */
uint64_t vktune_prepacked_weight_size(const char* layout, uint32_t n, uint32_t k,
                                      uint32_t group_size);

/* Raw int4 weights [N, K/2] and scales [K/group_size, N] (scale_count of them, as floats; an
   f16 problem's widened) into `layout`, written to out (out_size >= vktune_prepacked_weight_size).
   Only packed_s16 reads the scales (rounded to fp16; the plan's scales binding is then 0 bytes,
   bind any 16-byte buffer); the others accept scales NULL with scale_count 0. Returns
   VKTUNE_OK, or VKTUNE_INVALID_QUERY with a message in err. */
int vktune_prepack_weight(const char* layout, const uint8_t* raw, size_t raw_size,
                          const float* scales, size_t scale_count, uint32_t n, uint32_t k,
                          uint32_t group_size, uint8_t* out, size_t out_size, char* err,
                          size_t errlen);

/* Frees a snapshot from vktune_snapshot_load; NULL is a no-op. Selections die with it. */
void vktune_snapshot_free(vktune_snapshot* snapshot);

#ifdef __cplusplus
}
#endif

#endif /* VKTUNE_RUNTIME_H_ */
