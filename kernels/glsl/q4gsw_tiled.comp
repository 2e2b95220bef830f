// q4gsw tiled GEMM: each thread owns a TM x TN register tile; threads are TX = 16 along N and
// WG / 16 along M, their rows and columns interleaved (m = m0 + i * TY + ty, n = n0 + j * TX + tx)
// so that neighbouring threads read neighbouring weights (coalesced in the packed layout) and
// store neighbouring outputs. Each weight is dequantized once per tile and reused for the TM
// rows held in registers. STAGED stages x and the dequantized weights through shared memory.
// Edge threads clamp their reads to row M-1 / column N-1 and never store the overhang.
// Tiles are walked grid-stride, so any problem fits maxComputeWorkGroupCount.
#version 450
#extension GL_GOOGLE_include_directive : require

// Sizing knobs are specialisation constants (one module serves every value; the family's
// source() gives them at pipeline creation): WG the workgroup size, TM x TN the thread's tile, BK
// the shared k-tile depth (a multiple of 8) where STAGED. Structural knobs are defines.
layout(constant_id = 0) const uint WG = 64;
layout(constant_id = 1) const uint TM = 4;
layout(constant_id = 2) const uint TN = 4;
layout(constant_id = 3) const uint BK = 16;
#ifndef STAGED
#define STAGED 0  // 1: stage x and the dequantized weights through shared memory, BK deep
#endif
#ifndef PACKED
#define PACKED 0  // 1: packed weight layout (K % 32 == 0), 0: raw (K % 8 == 0)
#endif

#define TX 16
#define TY (WG / TX)
#define BM (TY * TM)
#define BN (TX * TN)

layout(local_size_x_id = 0) in;

#include "q4gsw_common.glsl"

#if STAGED
shared float xs[BM * BK];  // [BM][BK]
shared float ws[BK * BN];  // [BK][BN], dequantized and scaled
#endif

void main() {
  const uint lid = gl_LocalInvocationID.x;
  const uint tx = lid % TX;
  const uint ty = lid / TX;
  const uint tiles_n = (pc.N + BN - 1) / BN;
  const uint tiles = tiles_n * ((pc.M + BM - 1) / BM);

  for (uint t = gl_WorkGroupID.x; t < tiles; t += gl_NumWorkGroups.x) {
    const uint m0 = (t / tiles_n) * BM;
    const uint n0 = (t % tiles_n) * BN;
    uint mrow[TM];
    uint ncol[TN];
    for (uint i = 0; i < TM; ++i) mrow[i] = min(m0 + i * TY + ty, pc.M - 1u);
    for (uint j = 0; j < TN; ++j) ncol[j] = min(n0 + j * TX + tx, pc.N - 1u);
    float acc[TM][TN];
    for (uint i = 0; i < TM; ++i)
      for (uint j = 0; j < TN; ++j) acc[i][j] = 0.0;

#if !STAGED
#if PACKED
    // One 16-byte block = 32 k of one output per load.
    for (uint kb = 0; kb < (pc.K >> 5); ++kb) {
      const uint k = kb * 32u;
      uvec4 q[TN];
      float s[TN];
      for (uint j = 0; j < TN; ++j) {
        q[j] = w4[kb * pc.n_pad + ncol[j]];
        s[j] = float(scales[(k / pc.gs) * pc.N + ncol[j]]);
      }
      for (uint c = 0; c < 4; ++c) {
        vec4 xl[TM], xh[TM];
        for (uint i = 0; i < TM; ++i) {
          const uint xi = (mrow[i] * pc.K + k + c * 8u) >> 2;
          xl[i] = vec4(x4[xi]);
          xh[i] = vec4(x4[xi + 1u]);
        }
        for (uint j = 0; j < TN; ++j) {
          vec4 lo, hi;
          dequant8(q[j][c], s[j], lo, hi);
          for (uint i = 0; i < TM; ++i) acc[i][j] += dot(xl[i], lo) + dot(xh[i], hi);
        }
      }
    }
#else
    for (uint kw = 0; kw < (pc.K >> 3); ++kw) {
      const uint k = kw * 8u;
      vec4 xl[TM], xh[TM];
      for (uint i = 0; i < TM; ++i) {
        const uint xi = (mrow[i] * pc.K + k) >> 2;
        xl[i] = vec4(x4[xi]);
        xh[i] = vec4(x4[xi + 1u]);
      }
      for (uint j = 0; j < TN; ++j) {
        vec4 lo, hi;
        dequant8(w[raw_word(ncol[j], kw)], float(scales[(k / pc.gs) * pc.N + ncol[j]]), lo, hi);
        for (uint i = 0; i < TM; ++i) acc[i][j] += dot(xl[i], lo) + dot(xh[i], hi);
      }
    }
#endif
#else  // STAGED: stage through shared memory; the last k-tile may be partial (zero-filled).
    for (uint k0 = 0; k0 < pc.K; k0 += BK) {
      for (uint e = lid; e < BM * BK; e += WG) {
        const uint r = e / BK, c = e % BK;
        const uint m = min(m0 + r, pc.M - 1u);
        xs[e] = k0 + c < pc.K ? float(x[m * pc.K + k0 + c]) : 0.0;
      }
      for (uint e = lid; e < BN * (BK / 8); e += WG) {
        const uint jn = e % BN, kw = e / BN;
        const uint n = min(n0 + jn, pc.N - 1u);
        const uint k = k0 + kw * 8u;
        vec4 lo = vec4(0.0), hi = vec4(0.0);
        if (k < pc.K) {
#if PACKED
          const uint word = w[packed_word(n, k >> 3)];
#else
          const uint word = w[raw_word(n, k >> 3)];
#endif
          dequant8(word, float(scales[(k / pc.gs) * pc.N + n]), lo, hi);
        }
        for (uint i = 0; i < 4; ++i) {
          ws[(kw * 8u + i) * BN + jn] = lo[i];
          ws[(kw * 8u + 4u + i) * BN + jn] = hi[i];
        }
      }
      barrier();
      for (uint kk = 0; kk < BK; ++kk) {
        float xv[TM];
        for (uint i = 0; i < TM; ++i) xv[i] = xs[(i * TY + ty) * BK + kk];
        for (uint j = 0; j < TN; ++j) {
          const float wv = ws[kk * BN + j * TX + tx];
          for (uint i = 0; i < TM; ++i) acc[i][j] += xv[i] * wv;
        }
      }
      barrier();
    }
#endif

    for (uint i = 0; i < TM; ++i) {
      const uint m = m0 + i * TY + ty;
      if (m >= pc.M) break;
      for (uint j = 0; j < TN; ++j) {
        const uint n = n0 + j * TX + tx;
        if (n < pc.N) out_[m * pc.N + n] = FLOAT_T(acc[i][j] + (pc.has_bias != 0u ? float(bias[n]) : 0.0));
      }
    }
  }
}
