// q4gsw GEMM on tensor cores (GL_KHR_cooperative_matrix, 16x16x16, fp16 operands, fp32
// accumulators) whose weight fragments never touch shared memory: every subgroup loads its own
// int4 words and builds its B fragments in registers, dequantising between its multiply-adds;
// only x is staged in shared memory, once per workgroup, a plain copy.
//
// Why: in q4gsw_coopmat.comp a workgroup alternates between staging a k-step (x and the
// dequantised weights) and multiplying it, a barrier after each, and on the H100 either phase
// alone took 53-78% of the time of both (docs/h100/README.md, ninth session). Here the weights'
// dequantising sits in each subgroup's instruction stream beside the tensor-core work it feeds,
// and a k-block's staging is one 16-byte load and four 4-byte stores an invocation. Building x's
// fragments in registers as well (no shared memory at all) lost 1.5-1.8x: every subgroup then
// reads its own rows of x from the L1/L2 (tenth session).
//
// It relies on the fragments' element order, which the cooperative-matrix extension leaves to
// the implementation; this is NVIDIA's (probed on the H100; the family runs on NVIDIA devices
// only, and the tuner's gate would fail a variant on a device that ordered them otherwise). Lane
// l holds, with r = l / 4 and c = l % 4, elements e = 0..7 at row (A, accumulator) or column (B)
// r + 8 * (e / 4) and, along k (A, B) or the column (accumulator), 2c + e % 2 + 8 * (e / 2 % 2).
// So in a k16 step lane c holds k-slots 2c, 2c+1, 2c+8 and 2c+9 of A and B alike, and the sum
// over k does not care which physical k a slot stands for, as long as A and B agree. In a
// 32-wide k-block lane c takes the physical k 8c .. 8c+7: slot 2c + e + 8p of k16 step s holds
// k 8c + 2s + p + 4e. For the weights that is one 32-bit word of each row's block, whose nibbles
// j and j+4 one mask unpacks into an fp16 pair (bits 4j, 16+4j); x is staged in that slot order.
//
// Tiles: SG subgroups side by side along N share the workgroup's TM rows of x, each owning
// FM x FN accumulator tiles. SPLITK > 1 splits K into slices, one workgroup per (slice, tile);
// every subgroup stores its fp32 partial to the workspace (binding 5; lane-major, 8 floats a lane
// a tile) and bumps its tile's counter; the subgroup that arrives last adds the slices' partials
// in slice order (the result does not depend on which one that is) to its registers, stores
// `out` and zeroes the counter. Needs the packed weight layout, K % 32 == 0, gs % 32 == 0 and
// subgroup size 32; fp16 limits as q4gsw_coopmat.comp's.
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
#define AHEAD 1  // k-blocks of weights loaded ahead of the one multiplied
#endif
#define STEP (AHEAD > 2 ? AHEAD : 2)  // k-blocks a trip of the unrolled loop

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

// x chunks (8 values of a row, k 8c' .. 8c'+7 of a 32-wide k-block) per invocation per k-block.
#define X_CHUNKS (TM * 4)
#define X_PER ((X_CHUNKS + SG * SG_SIZE - 1) / (SG * SG_SIZE))
// Shared memory in 32-bit words: two stages of TM rows of 32 halves plus 8 of padding, so that
// the 8 rows one fragment load reads start in different banks.
#define ROW 20
#define STAGE (TM * ROW)
shared uint smem[2 * STAGE];

// One k-block of the operands in registers, as loaded: this invocation's chunks of x (fp16 in
// one uvec4, fp32 in two vec4), and word c of the subgroup's weight rows n and n + 8 of each of
// its FN tiles with their scales.
struct XBlock {
#if F16
  uvec4 x[X_PER];
#else
  vec4 x[X_PER][2];
#endif
};
struct WBlock {
  uint w[FN][2];
  FLOAT_T s[FN][2];
};

// Zeros outside M, N and [0, k_end) (k_end % 32 == 0: a block is all in or all out).
XBlock load_x(uint m0, uint k, uint k_end) {
  XBlock b;
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
  return b;
}

WBlock load_w(uint n0, uint k, uint k_end, uint r, uint c) {
  WBlock b;
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

// Stores this invocation's x chunks into `stage` in the k-slot order of the weights: chunk c'
// (x[8c' + j], j = 0..7) fills slots 2c' + e + 8p of k16 step s with j = 2s + p + 4e.
void store_x(XBlock b, uint stage) {
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
}

// The weights (q - 8) * scale of the same pair: nibbles j and j + 4 of the word.
f16vec2 w_pair(WBlock b, uint jn, uint h, uint j) {
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
    const bool has_tile = n0 < pc.N;  // past N a subgroup multiplies zeros, for the barriers

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

    // The weights AHEAD k-blocks ahead in a ring of register slots, x one k-block ahead in
    // registers and one in a shared stage; the loop is unrolled STEP times so that slots and
    // stages are constants. One barrier a k-block: it publishes the stage written a k-block ago
    // and frees the one read then. Past k_end the blocks are zeros, multiplied for nothing.
    const uint k_begin = slice * slice_k, k_end = min(pc.K, k_begin + slice_k);
    WBlock ring[AHEAD];
    [[unroll]] for (uint d = 0; d < AHEAD; ++d) {
      ring[d] = load_w(n0, k_begin + d * 32u, k_end, r, c);
    }
    barrier();  // the previous tile's last stage has been read
    store_x(load_x(m0, k_begin, k_end), 0u);
    XBlock xnext = load_x(m0, k_begin + 32u, k_end);
    for (uint k0 = k_begin; k0 < k_end; k0 += STEP * 32u) {
      [[unroll]] for (uint d = 0; d < STEP; ++d) {
        const uint k = k0 + d * 32u;
        barrier();
        store_x(xnext, (d + 1u) % 2u);
        xnext = load_x(m0, k + 64u, k_end);
        const WBlock b = ring[d % AHEAD];
        ring[d % AHEAD] = load_w(n0, k + AHEAD * 32u, k_end, r, c);
        [[unroll]] for (uint s = 0; s < 2u; ++s) {
          MAT_A a[FM];
          [[unroll]] for (uint i = 0; i < FM; ++i) {
            MAT_LOAD(a[i], smem, (d % 2u) * STAGE + i * 16u * ROW + s * 8u, ROW, false);
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
