// The storage type of a kernel's float tensors (DType): FLOAT_T and VEC4_T are fp32 by default
// and fp16 with F16 1. Shaders convert on load and store and compute in fp32, so fp16 needs the
// device's storageBuffer16BitAccess only, not shaderFloat16.

#ifndef F16
#define F16 0
#endif
#if F16
#extension GL_EXT_shader_16bit_storage : require
#define FLOAT_T float16_t
#define VEC4_T f16vec4
#else
#define FLOAT_T float
#define VEC4_T vec4
#endif
