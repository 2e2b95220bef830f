// rope_rows: rotate-half RoPE (kernels/ops/rope.cpp), a workgroup per HPW consecutive heads
// (grid-stride past maxComputeWorkGroupCount), each invocation VEC pairs at a time: one vector
// from each half of a head, so D % (2 VEC) == 0.
#version 450
#extension GL_GOOGLE_include_directive : require

// WG (the workgroup size) and HPW are specialisation constants; VEC, which picks the load
// type, a define.
layout(constant_id = 0) const uint WG = 64;
layout(constant_id = 1) const uint HPW = 4;  // heads per workgroup
#ifndef VEC
#define VEC 2  // 1, 2 or 4 pairs per load
#endif

layout(local_size_x_id = 0) in;

#include "rope_common.glsl"

// VTYPE: VEC floats in fp32; STYPE: their storage.
#if VEC == 4
#define VTYPE vec4
#define STYPE VEC4_T
#elif VEC == 2
#define VTYPE vec2
#if F16
#define STYPE f16vec2
#else
#define STYPE vec2
#endif
#else
#define VTYPE float
#define STYPE FLOAT_T
#endif

layout(std430, binding = 0) readonly buffer XBuf { STYPE x[]; };   // [M, heads, D]
layout(std430, binding = 2) writeonly buffer OBuf { STYPE o[]; };  // [M, heads, D]

// The cosines (`from` 0) or sines (1) of VEC consecutive pairs from table index `angle`.
VTYPE angles(uint angle, uint from) {
#if VEC == 1
  return float(table[angle + from]);
#else
  VTYPE v;
  for (uint j = 0u; j < VEC; ++j) v[j] = float(table[angle + 2u * j + from]);
  return v;
#endif
}

void main() {
  const uint half_v = pc.head_dim / (2u * VEC);  // vectors in half a head
  const uint rows = pc.tokens * pc.heads;        // heads of all tokens, one after the other
  for (uint first = gl_WorkGroupID.x * HPW; first < rows; first += gl_NumWorkGroups.x * HPW) {
    const uint items = min(HPW, rows - first) * half_v;
    for (uint i = gl_LocalInvocationID.x; i < items; i += WG) {
      const uint row = first + i / half_v, v = i % half_v;
      const uint lo = row * 2u * half_v + v;
      const VTYPE a = VTYPE(x[lo]), b = VTYPE(x[lo + half_v]);
      const uint angle = angle_index(row / pc.heads, v * VEC);
      const VTYPE c = angles(angle, 0u), s = angles(angle, 1u);
      o[lo] = STYPE(a * c - b * s);
      o[lo + half_v] = STYPE(a * s + b * c);
    }
  }
}
