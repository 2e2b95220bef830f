// engine_copy: o[offset + i] = x[i] over `count` values, x and o each in its own storage type
// (IN_F16, OUT_F16): the decoder layer's append of v to the KV cache at its position, both in
// the layer's dtype. Grid-stride, like engine_add.comp.
#version 450

#ifndef WG
#define WG 256
#endif
#ifndef IN_F16
#define IN_F16 0
#endif
#ifndef OUT_F16
#define OUT_F16 0
#endif

#if IN_F16 || OUT_F16
#extension GL_EXT_shader_16bit_storage : require
#endif
#if IN_F16
#define IN_T float16_t
#else
#define IN_T float
#endif
#if OUT_F16
#define OUT_T float16_t
#else
#define OUT_T float
#endif

layout(local_size_x = WG) in;

layout(push_constant) uniform Push {
  uint count;
  uint offset;  // in elements of o
  uint pad0, pad1;
} pc;

layout(std430, binding = 0) readonly buffer XBuf { IN_T x[]; };
layout(std430, binding = 1) writeonly buffer OBuf { OUT_T o[]; };

void main() {
  const uint stride = gl_NumWorkGroups.x * WG;
  for (uint i = gl_GlobalInvocationID.x; i < pc.count; i += stride) {
    o[pc.offset + i] = OUT_T(float(x[i]));
  }
}
