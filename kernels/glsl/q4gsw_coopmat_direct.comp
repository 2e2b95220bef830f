// EXPERIMENT: q4gsw tensor-core GEMM whose weights are staged in shared memory as int4 (a copy
// of the packed blocks and their scales) and dequantised by each subgroup into B fragments in
// registers (NVIDIA's fragment order: see docs/h100/README.md, tenth session); x is staged as fp16
// in the weights' k-slot order. WM x WN subgroups, each FM x FN tiles.
#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_ballot : require
#define KHR 1
#include "coopmat_api.glsl"

#ifndef FM
#define FM 2  // 16x16 tiles per subgroup along M
#endif
#ifndef FN
#define FN 2  // ... along N
#endif
#ifndef WM
#define WM 1  // subgroups along M
#endif
#ifndef WN
#define WN 4  // subgroups along N
#endif
#define SG (WM * WN)
#ifndef SPLITK
#define SPLITK 1  // K slices per output tile
#endif

#define SG_SIZE 32
#define TM (WM * FM * 16)  // a workgroup's tile: TM x BN
#define BN (WN * FN * 16)

layout(local_size_x = SG * SG_SIZE) in;

#include "q4gsw_common.glsl"

// x as 16-byte units: 8 fp16 or (x4) 4 fp32 values.
layout(std430, binding = 0) readonly buffer XU4Buf { uvec4 xu4[]; };

#if SPLITK > 1
// The workspace: one counter per subgroup tile (rounded up to 16), then [SPLITK][tiles][FM * FN]
// partial tiles of 32 lanes x 8 floats. Coherent: the last slice reads what others wrote.
layout(std430, binding = 5) coherent buffer WsCount { uint counter[]; };
layout(std430, binding = 5) coherent buffer WsPartial4 { vec4 partial4[]; };
#endif

// x chunks (8 values of a row, k 8c' .. 8c'+7 of a 32-wide k-block) per invocation per k-block.
#define X_CHUNKS (TM * 4)
#define X_PER ((X_CHUNKS + SG * SG_SIZE - 1) / (SG * SG_SIZE))
// Shared memory in 32-bit words, two stages of: TM rows of x (32 halves + 8 of padding, so the
// 8 rows one fragment load reads start in different banks), BN packed blocks (4 words) and BN
// scales (fp32 bits).
#define ROW 20
#define X_WORDS (TM * ROW)
#define W_BASE X_WORDS
#define S_BASE (W_BASE + BN * 4)
#define STAGE (S_BASE + BN)
shared uint smem[2 * STAGE];
#define W_PER ((BN + SG * SG_SIZE - 1) / (SG * SG_SIZE))

// One k-block of this invocation's share of the staging, as loaded: chunks of x (fp16 in one
// uvec4, fp32 in two vec4), packed weight blocks and their scales.
struct Block {
#if F16
  uvec4 x[X_PER];
#else
  vec4 x[X_PER][2];
#endif
  uvec4 w[W_PER];
  float s[W_PER];
};

// Zeros outside M, N and [0, k_end) (k_end % 32 == 0: a block is all in or all out).
Block load_block(uint m0, uint n0, uint k, uint k_end) {
  Block b;
  [[unroll]] for (uint i = 0; i < X_PER; ++i) {
    const uint e = gl_LocalInvocationID.x + i * (SG * SG_SIZE);
    const uint m = m0 + e / 4u, c = e % 4u;
    const bool inside = (X_CHUNKS % (SG * SG_SIZE) == 0 || e < X_CHUNKS) && k < k_end && m < pc.M;
#if F16
    b.x[i] = uvec4(0u);
    if (inside) b.x[i] = xu4[(m * pc.K + k + 8u * c) >> 3];
#else
    b.x[i][0] = vec4(0.0);
    b.x[i][1] = vec4(0.0);
    if (inside) {
      const uint q = (m * pc.K + k + 8u * c) >> 2;
      b.x[i][0] = x4[q];
      b.x[i][1] = x4[q + 1u];
    }
#endif
  }
  [[unroll]] for (uint i = 0; i < W_PER; ++i) {
    const uint e = gl_LocalInvocationID.x + i * (SG * SG_SIZE), n = n0 + e;
    b.w[i] = uvec4(0u);
    b.s[i] = 0.0;
    if ((BN % (SG * SG_SIZE) == 0 || e < BN) && k < k_end && n < pc.N) {
      b.w[i] = w4[(k >> 5) * pc.n_pad + n];
      b.s[i] = float(scales[(k / pc.gs) * pc.N + n]);
    }
  }
  return b;
}

// Stores this invocation's x chunks into `stage` in the k-slot order of the weights: chunk c'
// (x[8c' + j], j = 0..7) fills slots 2c' + e + 8p of k16 step s with j = 2s + p + 4e.
void store_block(Block b, uint stage) {
  [[unroll]] for (uint i = 0; i < X_PER; ++i) {
    const uint e = gl_LocalInvocationID.x + i * (SG * SG_SIZE);
    if (X_CHUNKS % (SG * SG_SIZE) != 0 && e >= X_CHUNKS) continue;
    const uint row = stage * STAGE + (e / 4u) * ROW, c = e % 4u;
#if F16
    const uvec4 v = b.x[i];  // halves (0,1) (2,3) (4,5) (6,7)
    smem[row + c] = (v[0] & 0xFFFFu) | (v[2] << 16);               // s 0, p 0: j 0, 4
    smem[row + c + 4u] = (v[0] >> 16) | (v[2] & 0xFFFF0000u);      // s 0, p 1: j 1, 5
    smem[row + 8u + c] = (v[1] & 0xFFFFu) | (v[3] << 16);          // s 1, p 0: j 2, 6
    smem[row + 8u + c + 4u] = (v[1] >> 16) | (v[3] & 0xFFFF0000u); // s 1, p 1: j 3, 7
#else
    const vec4 lo = b.x[i][0], hi = b.x[i][1];
    smem[row + c] = packFloat2x16(f16vec2(lo.x, hi.x));
    smem[row + c + 4u] = packFloat2x16(f16vec2(lo.y, hi.y));
    smem[row + 8u + c] = packFloat2x16(f16vec2(lo.z, hi.z));
    smem[row + 8u + c + 4u] = packFloat2x16(f16vec2(lo.w, hi.w));
#endif
  }
  [[unroll]] for (uint i = 0; i < W_PER; ++i) {
    const uint e = gl_LocalInvocationID.x + i * (SG * SG_SIZE);
    if (BN % (SG * SG_SIZE) != 0 && e >= BN) continue;
    const uint at = stage * STAGE + W_BASE + e * 4u;
    smem[at] = b.w[i].x;
    smem[at + 1u] = b.w[i].y;
    smem[at + 2u] = b.w[i].z;
    smem[at + 3u] = b.w[i].w;
    smem[stage * STAGE + S_BASE + e] = floatBitsToUint(b.s[i]);
  }
}

// The weights (q - 8) * scale of element pair p of k16 step s (j = 2s + p): nibbles j and j + 4
// of word c of block row `row` of `stage`.
f16vec2 w_pair(uint stage, uint row, uint c, uint j) {
  const uint word = smem[stage * STAGE + W_BASE + row * 4u + c];
  const float16_t scale = float16_t(uintBitsToFloat(smem[stage * STAGE + S_BASE + row]));
  // 0x6400 is fp16 1024 with ulp 1: or-ing q into the mantissa gives 1024 + q exactly.
  const f16vec2 q = unpackFloat2x16(((word >> (4u * j)) & 0x000F000Fu) | 0x64006400u);
  return (q - f16vec2(1032.0)) * scale;
}

void main() {
  const uint sgid = gl_SubgroupID, lane = gl_SubgroupInvocationID;
  const uint r = lane >> 2, c = lane & 3u;
  const uint tiles_m = (pc.M + TM - 1u) / TM;
  const uint wg_tiles = tiles_m * ((pc.N + BN - 1u) / BN);
  // Each slice takes the same whole number of k-blocks; the last may get fewer, or none.
  const uint slice_k = ((pc.K >> 5) + SPLITK - 1u) / SPLITK * 32u;

  // M fastest: neighbouring workgroups share a weight tile.
  for (uint t = gl_WorkGroupID.x; t < wg_tiles * SPLITK; t += gl_NumWorkGroups.x) {
    const uint wg_tile = t % wg_tiles, slice = t / wg_tiles;
    const uint wm = sgid / WN, wn = sgid % WN;
    const uint m_wg = (wg_tile % tiles_m) * TM, n_wg = (wg_tile / tiles_m) * BN;
    const uint m0 = m_wg + wm * FM * 16u, n0 = n_wg + wn * FN * 16u;  // this subgroup's tile
    const bool has_tile = m0 < pc.M && n0 < pc.N;  // else it multiplies zeros, for the barriers

    MAT_ACC acc[FM][FN];
    [[unroll]] for (uint j = 0; j < FN; ++j) {
      MAT_ACC init = MAT_ACC(0.0);
      if (pc.has_bias != 0u && slice == 0u) {
        [[unroll]] for (uint e = 0; e < 8u; ++e) {
          const uint n = n0 + j * 16u + 2u * c + (e & 1u) + 8u * ((e >> 1) & 1u);
          init[e] = n < pc.N ? float(bias[n]) : 0.0;
        }
      }
      [[unroll]] for (uint i = 0; i < FM; ++i) acc[i][j] = init;
    }

    // A k-block ahead in registers and one in a shared stage; the loop is unrolled twice so that
    // stages are constants. One barrier a k-block: it publishes the stage written a k-block ago
    // and frees the one read then. Past k_end the blocks are zeros, multiplied for nothing.
    const uint k_begin = slice * slice_k, k_end = min(pc.K, k_begin + slice_k);
    barrier();  // the previous tile's last stage has been read
    store_block(load_block(m_wg, n_wg, k_begin, k_end), 0u);
    Block next = load_block(m_wg, n_wg, k_begin + 32u, k_end);
    for (uint k0 = k_begin; k0 < k_end; k0 += 64u) {
      [[unroll]] for (uint d = 0; d < 2u; ++d) {
        const uint k = k0 + d * 32u;
        barrier();
        store_block(next, (d + 1u) % 2u);
        next = load_block(m_wg, n_wg, k + 64u, k_end);
        [[unroll]] for (uint s = 0; s < 2u; ++s) {
          MAT_A a[FM];
          [[unroll]] for (uint i = 0; i < FM; ++i) {
            MAT_LOAD(a[i], smem, d * STAGE + (wm * FM + i) * 16u * ROW + s * 8u, ROW, false);
          }
          [[unroll]] for (uint j = 0; j < FN; ++j) {
            MAT_B bm;
            [[unroll]] for (uint h = 0; h < 2u; ++h) {
              [[unroll]] for (uint p = 0; p < 2u; ++p) {
                const f16vec2 v = w_pair(d, (wn * FN + j) * 16u + h * 8u + r, c, 2u * s + p);
                bm[4u * h + 2u * p] = v.x;
                bm[4u * h + 2u * p + 1u] = v.y;
              }
            }
            [[unroll]] for (uint i = 0; i < FM; ++i) acc[i][j] = MAT_MULADD(a[i], bm, acc[i][j]);
          }
        }
      }
    }

    if (!has_tile) continue;  // no barrier follows in this trip

#if SPLITK > 1
    // Hand this slice's partial over; the last slice of the tile to arrive finishes it.
    const uint tile = wg_tile * SG + sgid, tiles = wg_tiles * SG;
    const uint counters4 = ((tiles + 15u) & ~15u) / 4u;
    const uint frag4 = 64u;  // a partial tile: 32 lanes x 8 floats
    [[unroll]] for (uint i = 0; i < FM; ++i) {
      [[unroll]] for (uint j = 0; j < FN; ++j) {
        const uint at = counters4 + ((slice * tiles + tile) * (FM * FN) + i * FN + j) * frag4 +
                        lane * 2u;
        partial4[at] = vec4(acc[i][j][0], acc[i][j][1], acc[i][j][2], acc[i][j][3]);
        partial4[at + 1u] = vec4(acc[i][j][4], acc[i][j][5], acc[i][j][6], acc[i][j][7]);
      }
    }
    memoryBarrierBuffer();  // the partial is visible before the counter says it is there
    subgroupBarrier();
    uint arrived = 0u;
    if (subgroupElect()) arrived = atomicAdd(counter[tile], 1u);
    if (subgroupBroadcastFirst(arrived) != SPLITK - 1u) continue;
    memoryBarrierBuffer();  // and the others' partials are read after their counts
    [[unroll]] for (uint i = 0; i < FM; ++i) {
      [[unroll]] for (uint j = 0; j < FN; ++j) {
        vec4 lo = vec4(0.0), hi = vec4(0.0);
        [[unroll]] for (uint sl = 0; sl < SPLITK; ++sl) {
          const uint at = counters4 + ((sl * tiles + tile) * (FM * FN) + i * FN + j) * frag4 +
                          lane * 2u;
          // This slice's own partial from its registers: the same floats, the same order.
          lo += sl == slice ? vec4(acc[i][j][0], acc[i][j][1], acc[i][j][2], acc[i][j][3])
                            : partial4[at];
          hi += sl == slice ? vec4(acc[i][j][4], acc[i][j][5], acc[i][j][6], acc[i][j][7])
                            : partial4[at + 1u];
        }
        [[unroll]] for (uint e = 0; e < 4u; ++e) {
          acc[i][j][e] = lo[e];
          acc[i][j][4u + e] = hi[e];
        }
      }
    }
    if (subgroupElect()) counter[tile] = 0u;  // ready for the next dispatch
#endif

    [[unroll]] for (uint i = 0; i < FM; ++i) {
      [[unroll]] for (uint j = 0; j < FN; ++j) {
        const uint mt = m0 + i * 16u, nt = n0 + j * 16u;
        if (mt + 16u <= pc.M && nt + 16u <= pc.N && (pc.N & 3u) == 0u) {
#if F16
          MAT_STORE(MAT_ACC16(acc[i][j]), out_, mt * pc.N + nt, pc.N, false);
#else
          MAT_STORE(acc[i][j], out_, mt * pc.N + nt, pc.N, false);
#endif
        } else {
          [[unroll]] for (uint e = 0; e < 8u; ++e) {
            const uint m = mt + r + 8u * (e >> 2);
            const uint n = nt + 2u * c + (e & 1u) + 8u * ((e >> 1) & 1u);
            if (m < pc.M && n < pc.N) out_[m * pc.N + n] = FLOAT_T(acc[i][j][e]);
          }
        }
      }
    }
  }
}
