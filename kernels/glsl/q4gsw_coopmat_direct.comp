// q4gsw GEMM on tensor cores (GL_KHR_cooperative_matrix, 16x16x16, fp16 operands, fp32
// accumulators) with no shared memory and no barriers: every subgroup builds its fragments in
// registers, straight from global memory, and multiplies them.
//
// Why: in q4gsw_coopmat.comp a workgroup alternates between staging a k-step in shared memory
// and multiplying it, a barrier after each, and on the H100 either phase alone took 53-78% of
// the time of both (docs/h100/README.md, ninth session). Here each subgroup loads the next
// k-step into registers while it multiplies this one, dequantises its own weights between its
// multiply-adds, and waits for no other subgroup; latency is hidden by the other subgroups an SM
// holds, which share nothing but the L1.
//
// It relies on the fragments' element order, which the cooperative-matrix extension leaves to
// the implementation; this is NVIDIA's (probed on the H100, the family's device check), and the
// tuner's gate fails any variant on a device that orders them otherwise. Lane l holds, with
// r = l / 4 and c = l % 4,
// elements e = 0..7 at row (A, accumulator) or column (B) r + 8 * (e / 4) and, along the
// multiplied dimension k (A, B) or the column (accumulator), 2c + e % 2 + 8 * (e / 2 % 2).
// So in a k16 step lane c holds the k-slots 2c, 2c+1, 2c+8 and 2c+9 of A and B alike, and the
// sum over k does not care which physical k a slot stands for, as long as A and B agree. In a
// 32-wide k-block, lane c takes the physical k 8c .. 8c+7: slots (2c + e, 2c + 8 + e) of k16 step
// s hold k 8c + 2s + 4e and 8c + 2s + 1 + 4e. That is one 16-byte load of x per row and one
// 32-bit word of each weight row's block, whose nibbles j and j+4 one mask unpacks into an fp16
// pair (bits 4j, 16+4j).
//
// Tiles: SG subgroups side by side along N (they read the same rows of x, which the L1 then
// serves once), each owning FM x FN accumulator tiles. SPLITK > 1 splits K into slices, one
// workgroup per (slice, tile); every subgroup stores its fp32 partial to the workspace (binding
// 5; lane-major, 8 floats a lane a tile) and bumps its tile's counter; the subgroup that arrives
// last adds the slices' partials in slice order (the result does not depend on which one that
// is) to its registers, stores `out` and zeroes the counter. Needs the packed weight layout,
// K % 32 == 0, gs % 32 == 0 and subgroup size 32; fp16 limits as q4gsw_coopmat.comp's.
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
#ifndef SG
#define SG 4  // subgroups per workgroup, along N
#endif
#ifndef SPLITK
#define SPLITK 1  // K slices per output tile
#endif
#ifndef AHEAD
#define AHEAD 1  // k-blocks loaded ahead of the one multiplied
#endif

#define SG_SIZE 32
#define TM (FM * 16)       // a subgroup's tile
#define TN (FN * 16)
#define BN (SG * TN)       // a workgroup's tile: TM x BN

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

// One k-block (32 wide) of a subgroup's operands, as loaded: x rows r and r + 8 of each of the
// FM tiles (k 8c .. 8c+7: fp16 in one uvec4, fp32 in two vec4), and word c of weight rows n and
// n + 8 of each of the FN tiles with their scales.
struct Block {
#if F16
  uvec4 x[FM][2];
#else
  vec4 x[FM][2][2];
#endif
  uint w[FN][2];
  FLOAT_T s[FN][2];
};

// Zeros outside M, N and [0, k_end) (k_end % 32 == 0: a block is all in or all out).
Block load_block(uint m0, uint n0, uint k, uint k_end, uint r, uint c) {
  Block b;
  [[unroll]] for (uint i = 0; i < FM; ++i) {
    [[unroll]] for (uint h = 0; h < 2; ++h) {
      const uint m = m0 + i * 16u + h * 8u + r;
#if F16
      b.x[i][h] = uvec4(0u);
      if (k < k_end && m < pc.M) b.x[i][h] = xu4[(m * pc.K + k + 8u * c) >> 3];
#else
      b.x[i][h][0] = vec4(0.0);
      b.x[i][h][1] = vec4(0.0);
      if (k < k_end && m < pc.M) {
        const uint q = (m * pc.K + k + 8u * c) >> 2;
        b.x[i][h][0] = x4[q];
        b.x[i][h][1] = x4[q + 1u];
      }
#endif
    }
  }
  [[unroll]] for (uint j = 0; j < FN; ++j) {
    [[unroll]] for (uint h = 0; h < 2; ++h) {
      const uint n = n0 + j * 16u + h * 8u + r;
      b.w[j][h] = 0u;
      b.s[j][h] = FLOAT_T(0.0);
      if (k < k_end && n < pc.N) {
        b.w[j][h] = w[packed_word(n, (k >> 3) + c)];
        b.s[j][h] = scales[(k / pc.gs) * pc.N + n];
      }
    }
  }
  return b;
}

// x's values of element pair p (slots 2c + 8p and 2c + 8p + 1) of k16 step s: k 8c + j and
// 8c + j + 4 with j = 2s + p.
f16vec2 x_pair(Block b, uint i, uint h, uint j) {
#if F16
  const f16vec2 lo = unpackFloat2x16(b.x[i][h][j >> 1]), hi = unpackFloat2x16(b.x[i][h][2u + (j >> 1)]);
  return (j & 1u) == 0u ? f16vec2(lo.x, hi.x) : f16vec2(lo.y, hi.y);
#else
  return f16vec2(b.x[i][h][0][j], b.x[i][h][1][j]);
#endif
}

// The weights (q - 8) * scale of the same pair: nibbles j and j + 4 of the word.
f16vec2 w_pair(Block b, uint jn, uint h, uint j) {
  // 0x6400 is fp16 1024 with ulp 1: or-ing q into the mantissa gives 1024 + q exactly.
  const f16vec2 q = unpackFloat2x16(((b.w[jn][h] >> (4u * j)) & 0x000F000Fu) | 0x64006400u);
  return (q - f16vec2(1032.0)) * float16_t(b.s[jn][h]);
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
    const uint m0 = (wg_tile % tiles_m) * TM;
    const uint n0 = (wg_tile / tiles_m) * BN + sgid * TN;
    if (n0 >= pc.N) continue;  // past N: this subgroup has no tile (in every slice alike)

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

    // AHEAD k-blocks in flight in a ring of register slots, constants once the loop is unrolled
    // AHEAD times; past k_end the blocks are zeros, multiplied for nothing.
    const uint k_begin = slice * slice_k, k_end = min(pc.K, k_begin + slice_k);
    Block ring[AHEAD];
    [[unroll]] for (uint d = 0; d < AHEAD; ++d) ring[d] = load_block(m0, n0, k_begin + d * 32u, k_end, r, c);
    for (uint k0 = k_begin; k0 < k_end; k0 += AHEAD * 32u) {
      [[unroll]] for (uint d = 0; d < AHEAD; ++d) {
        const Block b = ring[d];
        ring[d] = load_block(m0, n0, k0 + (d + AHEAD) * 32u, k_end, r, c);
        [[unroll]] for (uint s = 0; s < 2u; ++s) {
          MAT_A a[FM];
          [[unroll]] for (uint i = 0; i < FM; ++i) {
            [[unroll]] for (uint h = 0; h < 2u; ++h) {
              [[unroll]] for (uint p = 0; p < 2u; ++p) {
                const f16vec2 v = x_pair(b, i, h, 2u * s + p);
                a[i][4u * h + 2u * p] = v.x;
                a[i][4u * h + 2u * p + 1u] = v.y;
              }
            }
          }
          [[unroll]] for (uint j = 0; j < FN; ++j) {
            MAT_B bm;
            [[unroll]] for (uint h = 0; h < 2u; ++h) {
              [[unroll]] for (uint p = 0; p < 2u; ++p) {
                const f16vec2 v = w_pair(b, j, h, 2u * s + p);
                bm[4u * h + 2u * p] = v.x;
                bm[4u * h + 2u * p + 1u] = v.y;
              }
            }
            [[unroll]] for (uint i = 0; i < FM; ++i) acc[i][j] = MAT_MULADD(a[i], bm, acc[i][j]);
          }
        }
      }
    }

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
