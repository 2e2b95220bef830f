// engine_add: out[i] = a[i] + b[i] over `count` floats (the decoder layer's residual adds).
// Grid-stride, so any count fits the device's workgroup-count limit.
#version 450

#ifndef WG
#define WG 256
#endif

layout(local_size_x = WG) in;

layout(push_constant) uniform Push {
  uint count;
  uint pad0, pad1, pad2;
} pc;

layout(std430, binding = 0) readonly buffer ABuf { float a[]; };
layout(std430, binding = 1) readonly buffer BBuf { float b[]; };
layout(std430, binding = 2) writeonly buffer OBuf { float o[]; };

void main() {
  const uint stride = gl_NumWorkGroups.x * WG;
  for (uint i = gl_GlobalInvocationID.x; i < pc.count; i += stride) o[i] = a[i] + b[i];
}
