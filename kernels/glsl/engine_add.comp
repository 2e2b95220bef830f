// engine_add: out[i] = a[i] + b[i] over `count` floats (the decoder layer's residual adds).
// Grid-stride, so any count fits the device's workgroup-count limit.
#version 450
#extension GL_GOOGLE_include_directive : require

#ifndef WG
#define WG 256
#endif

layout(local_size_x = WG) in;

#include "float_type.glsl"  // FLOAT_T: fp32, or fp16 with F16 (computed in fp32)

layout(push_constant) uniform Push {
  uint count;
  uint pad0, pad1, pad2;
} pc;

layout(std430, binding = 0) readonly buffer ABuf { FLOAT_T a[]; };
layout(std430, binding = 1) readonly buffer BBuf { FLOAT_T b[]; };
layout(std430, binding = 2) writeonly buffer OBuf { FLOAT_T o[]; };

void main() {
  const uint stride = gl_NumWorkGroups.x * WG;
  for (uint i = gl_GlobalInvocationID.x; i < pc.count; i += stride) {
    o[i] = FLOAT_T(float(a[i]) + float(b[i]));
  }
}
