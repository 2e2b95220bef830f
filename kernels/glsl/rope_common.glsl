// What the rope shaders share: the push constants (RopePush in kernels/ops/rope.cpp), the
// storage type and the table. Token t of M sits at position L - M + t; the table holds L rows
// of D/2 (cos, sin) pairs in the problem's dtype.

layout(push_constant) uniform Push {
  uint tokens;    // M
  uint positions;  // L: the table's rows
  uint heads;
  uint head_dim;  // D, even
} pc;

#include "float_type.glsl"  // FLOAT_T: fp32, or fp16 with F16 (computed in fp32)

layout(std430, binding = 1) readonly buffer TBuf { FLOAT_T table[]; };  // [L, D/2, 2]

// The index in `table` of the cosine of pair `pair` for token `t`.
uint angle_index(uint t, uint pair) {
  return ((pc.positions - pc.tokens + t) * (pc.head_dim / 2u) + pair) * 2u;
}
