// rms_norm: y[r, i] = x[r, i] / sqrt(mean(x[r, :]^2) + eps) * w[i]. One workgroup per row
// (grid-stride past maxComputeWorkGroupCount), shared-memory tree reduction.
#version 450
#extension GL_GOOGLE_include_directive : require

// WG, the workgroup size, is a specialisation constant; VEC a define.
layout(constant_id = 0) const uint WG = 256;
#ifndef VEC
#define VEC 1  // 4: vec4 loads and stores (width % 4 == 0)
#endif

layout(local_size_x_id = 0) in;

layout(push_constant) uniform Push {
  uint rows;
  uint width;
  float eps;
  uint pad0;
} pc;

#include "float_type.glsl"

// VTYPE: what one load holds in fp32; STYPE: its storage (fp16 with F16).
#if VEC == 4
#define VTYPE vec4
#define STYPE VEC4_T
#else
#define VTYPE float
#define STYPE FLOAT_T
#endif
layout(std430, binding = 0) readonly buffer XBuf { STYPE x[]; };
layout(std430, binding = 1) readonly buffer WBuf { STYPE wt[]; };
layout(std430, binding = 2) writeonly buffer OBuf { STYPE y[]; };

shared float red[WG];

void main() {
  const uint lid = gl_LocalInvocationID.x;
  const uint vw = pc.width / VEC;
  for (uint r = gl_WorkGroupID.x; r < pc.rows; r += gl_NumWorkGroups.x) {
    float sum = 0.0;
    for (uint i = lid; i < vw; i += WG) {
      const VTYPE v = VTYPE(x[r * vw + i]);
      sum += dot(v, v);
    }
    red[lid] = sum;
    barrier();
    for (uint h = WG / 2; h > 0; h >>= 1) {
      if (lid < h) red[lid] += red[lid + h];
      barrier();
    }
    const float inv = 1.0 / sqrt(red[0] / float(pc.width) + pc.eps);
    barrier();  // red[0] is read by all before the next row overwrites it
    for (uint i = lid; i < vw; i += WG) {
      y[r * vw + i] = STYPE(VTYPE(x[r * vw + i]) * inv * VTYPE(wt[i]));
    }
  }
}
