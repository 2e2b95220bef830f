// Push constants, bindings and workgroup reductions shared by the sdpa kernels. Problem sizes
// are push constants, the cache length among them, so one compiled variant serves a growing
// cache; workgroup and step knobs are #defines. Bindings: 0 q [M, heads, D], 1 K cache and
// 2 V cache [L (or more), kv_heads, D] (only the first L positions are read), 3 out
// [M, heads, D], 4 a workspace of Family::workspace_bytes (declared by the kernels using one).
// Token t sits at cache position L - M + t and attends positions 0..L - M + t (causal).
// Needs WG (a power of two), VEC (1, or 4: q, K, V and out read as vec4, D % 4 == 0) and QPG
// (the query heads a workgroup serves: the reductions take one value per head, so the heads
// share their barriers). With F16 1 (float_type.glsl) q, the caches and out are fp16 in memory:
// every load converts to fp32 (VTYPE(...)) and every store from it (STYPE(...)), so scores,
// softmax and sums stay fp32 and only 16-bit storage is needed.

#include "sdpa_push.glsl"

#include "float_type.glsl"

// VTYPE: what one load holds in fp32; STYPE: its storage (fp16 with F16).
#if VEC == 4
#define VTYPE vec4
#define STYPE VEC4_T
#else
#define VTYPE float
#define STYPE FLOAT_T
#endif

layout(std430, binding = 0) readonly buffer QBuf { STYPE q[]; };
layout(std430, binding = 1) readonly buffer KBuf { STYPE kc[]; };
layout(std430, binding = 2) readonly buffer VBuf { STYPE vc[]; };
layout(std430, binding = 3) writeonly buffer OBuf { STYPE o[]; };

// A score below any real one (finite, so that exp(a - b) of two of them is never NaN).
const float kNoScore = -1.0e30;

shared float red[QPG * WG];

// The workgroup's max / sum of each v[r], in place; every invocation calls it, in uniform
// control flow. The barriers also publish whatever shared memory the caller wrote before.
void workgroup_max(inout float v[QPG]) {
  const uint lid = gl_LocalInvocationID.x;
  [[unroll]] for (uint r = 0; r < QPG; ++r) red[r * WG + lid] = v[r];
  barrier();
  for (uint h = WG / 2; h > 0; h >>= 1) {
    if (lid < h) {
      [[unroll]] for (uint r = 0; r < QPG; ++r) {
        red[r * WG + lid] = max(red[r * WG + lid], red[r * WG + lid + h]);
      }
    }
    barrier();
  }
  [[unroll]] for (uint r = 0; r < QPG; ++r) v[r] = red[r * WG];
  barrier();  // everyone has read the results before the next reduction overwrites them
}

void workgroup_sum(inout float v[QPG]) {
  const uint lid = gl_LocalInvocationID.x;
  [[unroll]] for (uint r = 0; r < QPG; ++r) red[r * WG + lid] = v[r];
  barrier();
  for (uint h = WG / 2; h > 0; h >>= 1) {
    if (lid < h) {
      [[unroll]] for (uint r = 0; r < QPG; ++r) red[r * WG + lid] += red[r * WG + lid + h];
    }
    barrier();
  }
  [[unroll]] for (uint r = 0; r < QPG; ++r) v[r] = red[r * WG];
  barrier();
}

// Index of position `j`'s vector `i` of the KV head serving query head `h`, in VTYPE units.
uint cache_index(uint j, uint h, uint i) {
  return (j * pc.kv_heads + h / (pc.heads / pc.kv_heads)) * (pc.head_dim / VEC) + i;
}
