// q4gsw GEMM on tensor cores through GL_NV_cooperative_matrix: per k-tile the workgroup converts
// an x tile [BM, BK] to fp16 and dequantizes a weight tile [BK, BN] (raw layout) to fp16 in
// shared memory; each of the SG subgroups multiplies whole 16x16x16 tiles with fp32
// accumulators. Subgroups form a WM x WN grid; each owns FM x FN accumulator tiles.
// Accumulators start at the bias (loaded through a per-subgroup scratch) or zero. Interior
// tiles (and N % 4 == 0, for 16-byte aligned rows) are stored straight to `out`; edge tiles go
// through the scratch and a bounds-checked scalar copy. Needs subgroup size 32.
// Note fp16: |x| and |(q - 8) * scale| must stay below 65504.
#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_NV_cooperative_matrix : require

#ifndef BM
#define BM 64
#endif
#ifndef BN
#define BN 64
#endif
#ifndef BK
#define BK 32
#endif
#ifndef SG
#define SG 4  // subgroups per workgroup
#endif

#define SG_SIZE 32
#define WG (SG * SG_SIZE)
#define WN (SG < BN / 16 ? SG : BN / 16)  // subgroups along N
#define WM (SG / WN)                      // subgroups along M
#define FM (BM / 16 / WM)                 // 16x16 tiles per subgroup along M
#define FN (BN / 16 / WN)                 // ... along N
#define AS_STRIDE (BK + 8)                // halves; padding keeps rows 16-byte aligned
#define BS_STRIDE (BN + 8)

layout(local_size_x = WG) in;

#include "q4gsw_common.glsl"

shared float16_t As[BM * AS_STRIDE];  // x tile, [m][k]
shared float16_t Bs[BK * BS_STRIDE];  // dequantized weights, [k][n]
shared float Cs[SG * 256];            // per-subgroup 16x16 fp32 scratch

void main() {
  const uint lid = gl_LocalInvocationID.x;
  const uint sgid = gl_SubgroupID;
  const uint lane = gl_SubgroupInvocationID;
  const uint wm = sgid / WN, wn = sgid % WN;
  const uint tiles_n = (pc.N + BN - 1) / BN;
  const uint tiles = tiles_n * ((pc.M + BM - 1) / BM);

  for (uint t = gl_WorkGroupID.x; t < tiles; t += gl_NumWorkGroups.x) {
    const uint m0 = (t / tiles_n) * BM;
    const uint n0 = (t % tiles_n) * BN;

    fcoopmatNV<32, gl_ScopeSubgroup, 16, 16> acc[FM][FN];
    for (uint j = 0; j < FN; ++j) {
      fcoopmatNV<32, gl_ScopeSubgroup, 16, 16> init =
          fcoopmatNV<32, gl_ScopeSubgroup, 16, 16>(0.0);
      if (pc.has_bias != 0u) {
        const uint nt = n0 + (wn * FN + j) * 16u;
        for (uint e = lane; e < 256u; e += SG_SIZE) {
          const uint n = nt + e % 16u;
          Cs[sgid * 256u + e] = n < pc.N ? bias[n] : 0.0;
        }
        subgroupMemoryBarrierShared();
        subgroupBarrier();
        coopMatLoadNV(init, Cs, sgid * 256u, 16u, false);
        subgroupBarrier();  // the scratch is rewritten for the next j
      }
      for (uint i = 0; i < FM; ++i) acc[i][j] = init;
    }

    for (uint k0 = 0; k0 < pc.K; k0 += BK) {
      // x tile -> fp16 (K % 8 == 0, so a vec4 never straddles K).
      for (uint e = lid; e < BM * BK / 4; e += WG) {
        const uint r = e / (BK / 4), c = (e % (BK / 4)) * 4u;
        const uint m = m0 + r, k = k0 + c;
        const vec4 v = (m < pc.M && k < pc.K) ? x4[(m * pc.K + k) >> 2] : vec4(0.0);
        const uint a = r * AS_STRIDE + c;
        As[a] = float16_t(v.x);
        As[a + 1u] = float16_t(v.y);
        As[a + 2u] = float16_t(v.z);
        As[a + 3u] = float16_t(v.w);
      }
      // weight tile: word (n, 8 k) -> 8 dequantized fp16 (gs % 8 == 0: one scale per word).
      for (uint e = lid; e < BN * (BK / 8); e += WG) {
        const uint jn = e % BN, kw = e / BN;
        const uint n = n0 + jn, k = k0 + kw * 8u;
        vec4 lo = vec4(0.0), hi = vec4(0.0);
        if (n < pc.N && k < pc.K) dequant8(w[raw_word(n, k >> 3)], scales[(k / pc.gs) * pc.N + n], lo, hi);
        const uint b = kw * 8u * BS_STRIDE + jn;
        for (uint i = 0; i < 4; ++i) {
          Bs[b + i * BS_STRIDE] = float16_t(lo[i]);
          Bs[b + (i + 4u) * BS_STRIDE] = float16_t(hi[i]);
        }
      }
      barrier();
      for (uint kk = 0; kk < BK; kk += 16u) {
        fcoopmatNV<16, gl_ScopeSubgroup, 16, 16> a[FM];
        for (uint i = 0; i < FM; ++i) {
          coopMatLoadNV(a[i], As, (wm * FM + i) * 16u * AS_STRIDE + kk, AS_STRIDE, false);
        }
        for (uint j = 0; j < FN; ++j) {
          fcoopmatNV<16, gl_ScopeSubgroup, 16, 16> b;
          coopMatLoadNV(b, Bs, kk * BS_STRIDE + (wn * FN + j) * 16u, BS_STRIDE, false);
          for (uint i = 0; i < FM; ++i) acc[i][j] = coopMatMulAddNV(a[i], b, acc[i][j]);
        }
      }
      barrier();
    }

    for (uint i = 0; i < FM; ++i) {
      for (uint j = 0; j < FN; ++j) {
        const uint mt = m0 + (wm * FM + i) * 16u;
        const uint nt = n0 + (wn * FN + j) * 16u;
        if (mt + 16u <= pc.M && nt + 16u <= pc.N && (pc.N & 3u) == 0u) {
          coopMatStoreNV(acc[i][j], out_, mt * pc.N + nt, pc.N, false);
        } else {
          coopMatStoreNV(acc[i][j], Cs, sgid * 256u, 16u, false);
          subgroupMemoryBarrierShared();
          subgroupBarrier();
          for (uint e = lane; e < 256u; e += SG_SIZE) {
            const uint m = mt + e / 16u, n = nt + e % 16u;
            if (m < pc.M && n < pc.N) out_[m * pc.N + n] = Cs[sgid * 256u + e];
          }
          subgroupBarrier();
        }
      }
    }
  }
}
