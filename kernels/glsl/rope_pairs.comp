// rope_pairs: rotate-half RoPE (kernels/ops/rope.cpp), one invocation per rotated pair
// (i, i + D/2) of a head, grid-stride over the M x heads x D/2 pairs.
#version 450
#extension GL_GOOGLE_include_directive : require

layout(constant_id = 0) const uint WG = 256;  // the workgroup size, specialised

layout(local_size_x_id = 0) in;

#include "rope_common.glsl"

layout(std430, binding = 0) readonly buffer XBuf { FLOAT_T x[]; };   // [M, heads, D]
layout(std430, binding = 2) writeonly buffer OBuf { FLOAT_T o[]; };  // [M, heads, D]

void main() {
  const uint half_d = pc.head_dim / 2u;
  const uint count = pc.tokens * pc.heads * half_d;
  const uint stride = gl_NumWorkGroups.x * WG;
  for (uint i = gl_GlobalInvocationID.x; i < count; i += stride) {
    const uint pair = i % half_d, row = i / half_d;
    const uint lo = row * pc.head_dim + pair;
    const float a = float(x[lo]), b = float(x[lo + half_d]);
    const uint angle = angle_index(row / pc.heads, pair);
    const float c = float(table[angle]), s = float(table[angle + 1u]);
    o[lo] = FLOAT_T(a * c - b * s);
    o[lo + half_d] = FLOAT_T(a * s + b * c);
  }
}
