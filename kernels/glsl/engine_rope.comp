// engine_rope: Llama's rotary position embedding (rotate-half: dimension i of a head pairs with
// i + D/2) of `tokens` rows of `heads` heads, token t at position `position + t`, written from
// row `dst_row` on: q into its own tensor, k straight into the KV cache (its append), both in
// x's storage type, since the cache is what sdpa of the layer's dtype reads. The angles come
// from a host-computed table, since GLSL's sin and cos are only good to 2^-11. Grid-stride over
// the rotated pairs, like engine_add.comp.
#version 450
#extension GL_GOOGLE_include_directive : require

#ifndef WG
#define WG 256
#endif

layout(local_size_x = WG) in;

#include "float_type.glsl"  // FLOAT_T of x and o: fp32, or fp16 with F16 (computed in fp32)

layout(push_constant) uniform Push {
  uint tokens;
  uint heads;
  uint head_dim;  // D, even
  uint position;  // of token 0
  uint dst_row;   // output row of token 0
  uint pad0, pad1, pad2;
} pc;

layout(std430, binding = 0) readonly buffer XBuf { FLOAT_T x[]; };       // [tokens, heads, D]
layout(std430, binding = 1) readonly buffer TBuf { vec2 table[]; };      // [L, D/2] (cos, sin)
layout(std430, binding = 2) writeonly buffer OBuf { FLOAT_T o[]; };      // [rows, heads, D]

void main() {
  const uint half_d = pc.head_dim / 2u;
  const uint count = pc.tokens * pc.heads * half_d;
  const uint stride = gl_NumWorkGroups.x * WG;
  for (uint i = gl_GlobalInvocationID.x; i < count; i += stride) {
    const uint pair = i % half_d, row_head = i / half_d, t = row_head / pc.heads;
    const uint src = row_head * pc.head_dim + pair;
    const uint dst = pc.dst_row * pc.heads * pc.head_dim + src;
    const float a = float(x[src]), b = float(x[src + half_d]);
    const vec2 cs = table[(pc.position + t) * half_d + pair];
    o[dst] = FLOAT_T(a * cs.x - b * cs.y);
    o[dst + half_d] = FLOAT_T(a * cs.y + b * cs.x);
  }
}
