// engine_silu_mul: out[i] = silu(gate[i]) * up[i], silu(g) = g / (1 + e^-g), over `count`
// floats (the decoder layer's SwiGLU). Grid-stride, like engine_add.comp.
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

layout(std430, binding = 0) readonly buffer GBuf { FLOAT_T gate[]; };
layout(std430, binding = 1) readonly buffer UBuf { FLOAT_T up[]; };
layout(std430, binding = 2) writeonly buffer OBuf { FLOAT_T o[]; };

void main() {
  const uint stride = gl_NumWorkGroups.x * WG;
  for (uint i = gl_GlobalInvocationID.x; i < pc.count; i += stride) {
    const float g = float(gate[i]);
    // For g << 0, exp(-g) overflows to inf and g / inf = -0: the right limit.
    o[i] = FLOAT_T(g / (1.0 + exp(-g)) * float(up[i]));
  }
}
