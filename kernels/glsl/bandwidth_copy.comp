// Device-memory copy for measuring bandwidth (tuner/bandwidth.cpp): 16-byte loads and stores,
// grid-stride, so every SM streams. A driver's vkCmdCopyBuffer may use a copy engine that is
// far slower than the shader cores, which is not the limit our kernels run against.
#version 450

#ifndef WG
#define WG 256
#endif

layout(local_size_x = WG) in;
layout(push_constant) uniform Push { uint count; } pc;  // uvec4 elements
layout(std430, binding = 0) readonly buffer Src { uvec4 src[]; };
layout(std430, binding = 1) writeonly buffer Dst { uvec4 dst[]; };

void main() {
  const uint stride = gl_NumWorkGroups.x * WG;
  for (uint i = gl_GlobalInvocationID.x; i < pc.count; i += stride) dst[i] = src[i];
}
