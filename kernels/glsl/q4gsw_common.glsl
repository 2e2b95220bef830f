// Bindings and push constants shared by the q4gsw kernels. Problem sizes are push constants,
// so one compiled variant serves every shape; a knob is a specialisation constant where it only
// sizes tiles, loops or the workgroup, a #define where it shapes the code (ShaderSpec).
// Bindings: 0 x [M, K], 1 weight (raw [N, K/2] bytes, packed or packed_s16, see
// q4gsw_layout.h), 2 scales [K/gs, N] (unused by packed_s16, whose weight holds them), 3 bias [N] (read only when has_bias != 0), 4 out [M, N], 5 a workspace of
// Family::workspace_bytes (declared by the kernels that use one). x, scales, bias and out are
// FLOAT_T: fp32, or fp16 with F16 1. Reads convert to fp32 (float(), vec4()) and the sums stay
// fp32, so fp16 needs only 16-bit storage, not fp16 arithmetic; stores convert back (FLOAT_T()).

#include "float_type.glsl"

layout(push_constant) uniform Push {
  uint M;
  uint N;
  uint K;
  uint gs;        // group size
  uint has_bias;  // 0 or 1
  uint n_pad;     // packed layout: N rounded up to 8 (blocks per k-block row)
  uint pad0;
  uint pad1;
} pc;

layout(std430, binding = 0) readonly buffer XBuf { FLOAT_T x[]; };
layout(std430, binding = 0) readonly buffer X4Buf { VEC4_T x4[]; };
layout(std430, binding = 1) readonly buffer WBuf { uint w[]; };
layout(std430, binding = 1) readonly buffer W4Buf { uvec4 w4[]; };
layout(std430, binding = 2) readonly buffer SBuf { FLOAT_T scales[]; };
layout(std430, binding = 3) readonly buffer BBuf { FLOAT_T bias[]; };
layout(std430, binding = 4) writeonly buffer OBuf { FLOAT_T out_[]; };

// The 8 nibbles of `word` (low nibble first) as weights q - 8, times `s`.
void dequant8(uint word, float s, out vec4 lo, out vec4 hi) {
  lo = (vec4(float(word & 15u), float((word >> 4) & 15u), float((word >> 8) & 15u),
             float((word >> 12) & 15u)) - 8.0) * s;
  hi = (vec4(float((word >> 16) & 15u), float((word >> 20) & 15u), float((word >> 24) & 15u),
             float(word >> 28)) - 8.0) * s;
}

// Word index (8 nibbles, k = 8 * kw .. +7) of output n in the raw layout (K % 8 == 0) ...
uint raw_word(uint n, uint kw) { return n * (pc.K >> 3) + kw; }
// ... and in the packed layout: block (kw / 4, n), component kw % 4.
uint packed_word(uint n, uint kw) { return ((kw >> 2) * pc.n_pad + n) * 4u + (kw & 3u); }

// packed_s16 (fp16 scales interleaved; gs % 32 == 0): tile (group g, octet n / 8) of gs / 4 + 1
// uvec4s, the group's blocks of 8 outputs then their 8 fp16 scales. The first uvec4 of the tile
// holding output n's group g ...
uint s16_tile(uint n, uint g) { return (g * (pc.n_pad >> 3) + (n >> 3)) * ((pc.gs >> 2) + 1u); }
// ... the uvec4 index there of output n's block j of the group (k = g * gs + 32 j ..) ...
uint s16_block(uint tile, uint j, uint n) { return tile + j * 8u + (n & 7u); }
// ... and output n's scale: the u32 holding it and its neighbour's, unpacked (core GLSL, no
// 16-bit storage needed).
float s16_scale(uint tile, uint n) {
  const vec2 pair = unpackHalf2x16(w[(tile + (pc.gs >> 2)) * 4u + ((n & 7u) >> 1)]);
  return (n & 1u) != 0u ? pair.y : pair.x;
}
