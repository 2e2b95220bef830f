// q4gsw GEMV for decode (M <= 8): a workgroup computes ROWS outputs n for every row m; the
// WG / ROWS lanes of one output split K between them in chunks of 8 (LOAD_X4 0: one uint)
// or 32 nibbles (LOAD_X4 1: one uvec4, 16 bytes feeding 32 FMAs per row m), so weights are
// read once and reused for all M rows, and each chunk needs one scale (gs % chunk == 0).
// Raw layout (PACKED 0): an output's lanes are adjacent (lane = r * LPR + s) and read
// consecutive 16-byte pieces of its row. Packed layouts (PACKED 1; 2: packed_s16, the scales in
// the weight's tiles): lanes of neighbouring outputs are adjacent (lane = s * ROWS + r) and read
// neighbouring blocks. Partial sums are reduced by a shared
// tree or, raw only, subgroupAdd (needs whole subgroups per output: LPR % subgroup size == 0,
// with the usual linear mapping of invocations to subgroups).
#version 450
#extension GL_GOOGLE_include_directive : require

// WG (the workgroup size) and ROWS are specialisation constants; the rest are defines.
layout(constant_id = 0) const uint WG = 128;
layout(constant_id = 1) const uint ROWS = 4;
#ifndef LOAD_X4
#define LOAD_X4 1
#endif
#ifndef REDUCE_SUBGROUP
#define REDUCE_SUBGROUP 0
#endif
#ifndef PACKED
#define PACKED 0
#endif

#if REDUCE_SUBGROUP
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#endif

#define LPR (WG / ROWS)  // lanes per output
#define MMAX 8
#if LOAD_X4
#define CHUNK 32u
#else
#define CHUNK 8u
#endif

layout(local_size_x_id = 0) in;

#include "q4gsw_common.glsl"

shared float red[MMAX * WG];

void main() {
  const uint lid = gl_LocalInvocationID.x;
#if PACKED
  const uint r = lid % ROWS, s = lid / ROWS;
#define RED_INDEX(rr, ss) ((ss) * ROWS + (rr))
#else
  const uint r = lid / LPR, s = lid % LPR;
#define RED_INDEX(rr, ss) ((rr) * LPR + (ss))
#endif
  const uint chunks = pc.K / CHUNK;
  const uint out_groups = (pc.N + ROWS - 1) / ROWS;

  for (uint g = gl_WorkGroupID.x; g < out_groups; g += gl_NumWorkGroups.x) {
    const uint n = g * ROWS + r;
    const uint nc = min(n, pc.N - 1u);
    float acc[MMAX];
    for (uint m = 0; m < MMAX; ++m) acc[m] = 0.0;

    for (uint c = s; c < chunks; c += LPR) {
      const uint k = c * CHUNK;
#if PACKED == 2
      const uint tile = s16_tile(nc, k / pc.gs), jb = (k % pc.gs) >> 5;  // block in the group
      const float sc = s16_scale(tile, nc);
#else
      const float sc = float(scales[(k / pc.gs) * pc.N + nc]);
#endif
#if LOAD_X4
#if PACKED == 2
      const uvec4 q = w4[s16_block(tile, jb, nc)];
#elif PACKED
      const uvec4 q = w4[c * pc.n_pad + nc];
#else
      const uvec4 q = w4[nc * chunks + c];
#endif
      vec4 wv[8];
      for (uint i = 0; i < 4; ++i) dequant8(q[i], sc, wv[2 * i], wv[2 * i + 1]);
      for (uint m = 0; m < MMAX; ++m) {
        if (m >= pc.M) break;
        const uint xi = (m * pc.K + k) >> 2;
        float d = 0.0;
        for (uint i = 0; i < 8; ++i) d += dot(vec4(x4[xi + i]), wv[i]);
        acc[m] += d;
      }
#else
#if PACKED == 2
      const uint q = w[s16_block(tile, jb, nc) * 4u + (c & 3u)];
#elif PACKED
      const uint q = w[packed_word(nc, c)];
#else
      const uint q = w[raw_word(nc, c)];
#endif
      vec4 lo, hi;
      dequant8(q, sc, lo, hi);
      for (uint m = 0; m < MMAX; ++m) {
        if (m >= pc.M) break;
        const uint xi = (m * pc.K + k) >> 2;
        acc[m] += dot(vec4(x4[xi]), lo) + dot(vec4(x4[xi + 1u]), hi);
      }
#endif
    }

#if REDUCE_SUBGROUP
    // Whole subgroups belong to one output: reduce there, then across its subgroups.
    const uint per_row = LPR / gl_SubgroupSize;
    for (uint m = 0; m < MMAX; ++m) {
      if (m >= pc.M) break;
      const float v = subgroupAdd(acc[m]);
      if (subgroupElect()) red[m * WG + gl_SubgroupID] = v;
    }
    barrier();
    if (s == 0u && n < pc.N) {
      for (uint m = 0; m < MMAX; ++m) {
        if (m >= pc.M) break;
        float v = 0.0;
        for (uint i = 0; i < per_row; ++i) v += red[m * WG + r * per_row + i];
        out_[m * pc.N + n] = FLOAT_T(v + (pc.has_bias != 0u ? float(bias[n]) : 0.0));
      }
    }
#else
    for (uint m = 0; m < MMAX; ++m) {
      if (m >= pc.M) break;
      red[m * WG + lid] = acc[m];
    }
    barrier();
    for (uint h = LPR / 2; h > 0; h >>= 1) {
      if (s < h) {
        for (uint m = 0; m < MMAX; ++m) {
          if (m >= pc.M) break;
          red[m * WG + RED_INDEX(r, s)] += red[m * WG + RED_INDEX(r, s + h)];
        }
      }
      barrier();
    }
    if (s == 0u && n < pc.N) {
      for (uint m = 0; m < MMAX; ++m) {
        if (m >= pc.M) break;
        out_[m * pc.N + n] =
            FLOAT_T(red[m * WG + RED_INDEX(r, 0u)] + (pc.has_bias != 0u ? float(bias[n]) : 0.0));
      }
    }
#endif
    barrier();  // red is reused by the next output group
  }
}
