// q4gsw GEMM on tensor cores through GL_NV_cooperative_matrix, or GL_KHR_cooperative_matrix with
// KHR 1 (coopmat_api.glsl; 16x16x16, fp16 inputs, fp32 accumulators). Per k-step of BK the workgroup stages, in shared memory as fp16, an x tile
// [BM][BK] and a dequantized weight tile [BN][BK] (k contiguous: B is loaded column-major),
// from 16-byte global loads (two vec4 of x, one uvec4 = 32 nibbles of one weight row) and with
// 16-byte shared stores. SG subgroups in a WM x WN grid each own FM x FN accumulator tiles, so
// every fragment read from shared memory feeds FN (A) or FM (B) multiply-adds.
// BUF sets how loads overlap the tensor cores: 1 loads, stores, then multiplies; 2 fetches the
// next k-step into registers while the tensor cores work on this one; 4 fetches two k-steps
// ahead (a ring of two register slots: with one workgroup an SM, each k-step otherwise waits
// out a whole L2/DRAM latency); 3 fetches one ahead and stages into a second shared buffer, so
// a k-step costs one barrier instead of two.
//
// WAHEAD > AHEAD (BUF 2 or 4) fetches the weights WAHEAD k-steps ahead, in a ring of register
// slots of their own, while x stays AHEAD steps ahead: the weights come from DRAM (a layer's
// weights are cold), x from the L2. A weight slot costs 5 registers a chunk, an x slot 16. On
// the H100 it wins some fp16 tiles and costs most fp32 ones ~6%, so it is a knob.
//
// PW > 0 (WS; the warp-specialised families) adds PW subgroups that only stage: the SG
// subgroups of the tile grid only multiply, from one of two shared stages, while the PW stage the
// next k-step into the other (fetched a step earlier into their registers), and one barrier a k-step hands
// the stages over. With every subgroup doing both, a workgroup alternates staging and
// multiplying between two barriers, and on the H100 either phase alone took 60-80% of the time
// of both. Split this way the staging is the slower side
// on large problems (4-8 subgroups stage what 16 did), but it wins the problems with the
// fewest output tiles (N 512 and 1024 at M 16-128 there). BUF is unused.
//
// PACKED 1 reads the packed weight layout (q4gsw_layout.h): the threads of one k-block take
// neighbouring outputs, whose 16-byte blocks are contiguous there, so a warp's weight loads are
// 512 contiguous bytes instead of 16 rows' 32-byte pieces K/2 bytes apart.
//
// SPLITK > 1 (SPLIT; the q4gsw_coopmat_splitk family) also splits K into SPLITK slices, one tile per
// (slice, output tile), for problems with fewer output tiles than the GPU has SMs (prefill at
// M = 128 has 32-128). Every slice stores its fp32 partial tile to the workspace (binding 5)
// and bumps the tile's counter; the slice that arrives last adds the others' partials to its
// own and writes `out`, then zeroes the counter for the next dispatch. No slice waits for
// another, so the order the GPU runs workgroups in cannot deadlock it.
//
// Inside every 8-wide k chunk both tiles hold k in the order 0,4,1,5,2,6,3,7: one mask of a
// weight word yields nibbles j and j+4 as the two halves of a 32-bit word (bits 4j, 16+4j), and
// the dot product over k does not care about the order as long as A and B agree.
//
// Accumulators start at the bias (through a per-subgroup 16x16 fp32 scratch; slice 0 only) or
// zero; interior tiles (N % 4 == 0, for 16-byte aligned rows) are stored straight to `out`,
// edge tiles through the scratch and a bounds-checked copy. The scratch aliases the staging
// area, which is idle outside the k loop. Needs K % 32 == 0 and gs % 32 == 0 (one uvec4, one
// scale) and subgroup size 32. fp16: |x|, |scale| and |(q - 8) * scale| must stay below 65504,
// and scales above 6.1e-5 keep full fp16 precision.
#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_KHR_shader_subgroup_basic : require
#include "coopmat_api.glsl"

// The sizes are specialisation constants (one module serves every tile; the family's source()
// gives them): WG the workgroup size, (SG + PW) subgroups of SG_SIZE; BM x BN the output tile;
// BK the k-step (a multiple of 32); SG the subgroups of the tile grid, WN of them along N (the
// descriptor picks the squarest subgroup tile, and checks that the tile splits into whole 16x16
// tiles); SPLITK the K slices per output tile. The knobs that change the code are defines: BUF,
// WAHEAD, PACKED, KHR, WS (PW > 0) and SPLIT (SPLITK > 1).
#define SG_SIZE 32
layout(constant_id = 0) const uint WG = 128;
layout(constant_id = 1) const uint BM = 64;
layout(constant_id = 2) const uint BN = 64;
layout(constant_id = 3) const uint BK = 32;
layout(constant_id = 4) const uint SG = 4;
layout(constant_id = 5) const uint WN = 2;
layout(constant_id = 6) const uint SPLITK = 1;
#ifndef BUF
#define BUF 2  // 1: no prefetch; 2: one k-step ahead; 4: two ahead; 3: one ahead, two stages
#endif
#ifndef WS
#define WS 0  // 1: PW > 0 staging-only subgroups; 0: every subgroup stages and multiplies
#endif
#ifndef SPLIT
#define SPLIT 0  // 1: SPLITK > 1
#endif
#ifndef PACKED
#define PACKED 0  // 1: the packed weight layout, 0: raw
#endif

#define PW (WG / SG_SIZE - SG)  // staging-only subgroups
#if WS
#define STAGERS (PW * SG_SIZE)  // invocations that load and stage
#else
#define STAGERS WG
#endif
#define WM (SG / WN)       // subgroups along M
#define FM (BM / 16 / WM)  // 16x16 tiles per subgroup along M
#define FN (BN / 16 / WN)  // ... along N

#if BUF < 1 || BUF > 4
#error "q4gsw_coopmat: BUF is 1, 2, 3 or 4"
#endif
// STAGES shared staging buffers; SLOTS register slots of fetched k-steps of x; AHEAD k-steps
// fetched ahead of the one staged. (#if chains: the preprocessor has no ?: operator.)
#if WS
#define STAGES 2
#define SLOTS 1
#define AHEAD 1
#elif BUF == 1
#define STAGES 1
#define SLOTS 1
#define AHEAD 0
#elif BUF == 3
#define STAGES 2
#define SLOTS 1
#define AHEAD 1
#else
#define STAGES 1
#define SLOTS (BUF / 2)
#define AHEAD (BUF / 2)
#endif
#ifndef WAHEAD
#define WAHEAD AHEAD  // k-steps of weights fetched ahead of the one staged
#endif
#if WAHEAD > AHEAD
#if WS || BUF == 1 || BUF == 3 || WAHEAD % SLOTS != 0
#error "q4gsw_coopmat: a weight ring of its own needs BUF 2 or 4 and a multiple of SLOTS slots"
#endif
#define WSLOTS WAHEAD  // register slots of fetched weights
#define STEP WAHEAD    // k-steps per trip of the unrolled loop: every slot is a constant
#else
#if WAHEAD < AHEAD
#error "q4gsw_coopmat: the weights are fetched at least as far ahead as x"
#endif
#define WSLOTS SLOTS
#define STEP (WS != 0 || BUF == 3 || BUF == 4 ? 2 : 1)
#endif

// Shared memory in uvec4 (8 halves): a staged row is BK halves plus 16 bytes of padding, so
// the 8 rows one fragment load reads start in different banks.
#define ROW4 (BK / 8 + 1)
#define STAGE4 ((BM + BN) * ROW4)
#define SCRATCH4 (SG * 64)  // 16x16 fp32 per subgroup
#define SMEM4 (STAGES * STAGE4 > SCRATCH4 ? STAGES * STAGE4 : SCRATCH4)

// Global loads per k-step: x in chunks of 8 floats, weights in uvec4 of 32 nibbles.
#define A_CHUNKS (BM * BK / 8)
#define B_CHUNKS (BN * BK / 32)
#define A_PER ((A_CHUNKS + STAGERS - 1) / STAGERS)
#define B_PER ((B_CHUNKS + STAGERS - 1) / STAGERS)
// Weight chunk e's output row and 32-wide k-block within the tile: k-block fastest in the raw
// layout (a row's blocks are contiguous), output fastest in the packed one (a k-block's outputs
// are).
#if PACKED
#define B_ROW(e) ((e) % BN)
#define B_KB(e) ((e) / BN)
#else
#define B_ROW(e) ((e) / (BK / 32))
#define B_KB(e) ((e) % (BK / 32))
#endif

layout(local_size_x_id = 0) in;

#include "q4gsw_common.glsl"

shared uvec4 smem[SMEM4];

#if SPLIT
// The workspace: one counter per output tile, rounded up to 16 words (cooperative-matrix
// stores want 16-byte aligned rows), then [SPLITK][tiles][BM * BN] fp32 partials (row-major
// tiles). Coherent: the last slice reads what other workgroups wrote.
layout(std430, binding = 5) coherent buffer WsCount { uint counter[]; };
layout(std430, binding = 5) coherent buffer WsPartial { float partial[]; };
layout(std430, binding = 5) coherent buffer WsPartial4 { vec4 partial4[]; };
layout(std430, binding = 4) writeonly buffer O4Buf { VEC4_T out4[]; };
shared uint last_slice;
// The last slice's sum: vec4s of the tile per invocation, and how many are loaded at once.
#define SUM_ITERS ((BM * BN / 4 + WG - 1) / WG)
#define SUM_BATCH (SUM_ITERS < 4 ? SUM_ITERS : 4)
#endif

// Fetched k-steps of global data, in registers between the loads and store_tile: SLOTS of x,
// WSLOTS of weights. fp16 x (F16 1) stays fp16 from global memory to the multiply: half the
// registers, and store_tile only repacks it.
VEC4_T xa[SLOTS][A_PER][2];  // x[m][k .. k+3], x[m][k+4 .. k+7]
uvec4 wb[WSLOTS][B_PER];    // 32 nibbles of weight row n
FLOAT_T sb[WSLOTS][B_PER];  // their scale

// Read the k-step at k0 of tile (m0, n0), x into register slot `slot` and the weights into
// weight slot `slot` (constants once unrolled); zeros outside M, N and [0, k_end) (k_end % 32
// == 0, so a chunk is all in or all out): a split-K slice never multiplies its neighbour's k.
void load_x(uint slot, uint m0, uint k0, uint k_end, uint sid) {
  [[unroll]] for (uint i = 0; i < A_PER; ++i) {
    const uint e = sid + i * STAGERS;
    const uint m = m0 + e / (BK / 8), k = k0 + (e % (BK / 8)) * 8u;
    xa[slot][i][0] = VEC4_T(0.0);
    xa[slot][i][1] = VEC4_T(0.0);
    if ((A_CHUNKS % STAGERS == 0 || e < A_CHUNKS) && m < pc.M && k < k_end) {
      const uint q = (m * pc.K + k) >> 2;
      xa[slot][i][0] = x4[q];
      xa[slot][i][1] = x4[q + 1u];
    }
  }
}

void load_w(uint slot, uint n0, uint k0, uint k_end, uint sid) {
  [[unroll]] for (uint i = 0; i < B_PER; ++i) {
    const uint e = sid + i * STAGERS;
    const uint n = n0 + B_ROW(e), k = k0 + B_KB(e) * 32u;
    wb[slot][i] = uvec4(0u);
    sb[slot][i] = FLOAT_T(0.0);
    if ((B_CHUNKS % STAGERS == 0 || e < B_CHUNKS) && n < pc.N && k < k_end) {
#if PACKED
      wb[slot][i] = w4[(k >> 5) * pc.n_pad + n];
#else
      wb[slot][i] = w4[n * (pc.K >> 5) + (k >> 5)];
#endif
      sb[slot][i] = scales[(k / pc.gs) * pc.N + n];
    }
  }
}

// Converts x slot `slot` and weight slot `wslot` to fp16 and writes them to staging buffer
// `stage` (k order 0,4,1,5,...).
void store_tile(uint slot, uint wslot, uint stage, uint sid) {
  const uint A_BASE = stage * STAGE4, B_BASE = A_BASE + BM * ROW4;
  [[unroll]] for (uint i = 0; i < A_PER; ++i) {
    const uint e = sid + i * STAGERS;
    if (A_CHUNKS % STAGERS == 0 || e < A_CHUNKS) {
      const f16vec4 lo = f16vec4(xa[slot][i][0]), hi = f16vec4(xa[slot][i][1]);
      smem[A_BASE + (e / (BK / 8)) * ROW4 + e % (BK / 8)] =
          uvec4(packFloat2x16(f16vec2(lo.x, hi.x)), packFloat2x16(f16vec2(lo.y, hi.y)),
                packFloat2x16(f16vec2(lo.z, hi.z)), packFloat2x16(f16vec2(lo.w, hi.w)));
    }
  }
  [[unroll]] for (uint i = 0; i < B_PER; ++i) {
    const uint e = sid + i * STAGERS;
    if (B_CHUNKS % STAGERS == 0 || e < B_CHUNKS) {
      const f16vec2 s = f16vec2(float16_t(sb[wslot][i]));
      const uint base = B_BASE + B_ROW(e) * ROW4 + B_KB(e) * 4u;
      [[unroll]] for (uint c = 0; c < 4; ++c) {
        const uint word = wb[wslot][i][c];
        uvec4 h;
        [[unroll]] for (uint j = 0; j < 4; ++j) {
          // 0x6400 is fp16 1024 with ulp 1: or-ing q into the mantissa gives 1024 + q exactly.
          const f16vec2 q = unpackFloat2x16(((word >> (4u * j)) & 0x000F000Fu) | 0x64006400u);
          h[j] = packFloat2x16((q - f16vec2(1032.0)) * s);
        }
        smem[base + c] = h;
      }
    }
  }
}

void main() {
  const uint sgid = gl_SubgroupID;
  const uint lane = gl_SubgroupInvocationID;
#if WS
  const bool multiplier = sgid < SG, stager = !multiplier;
  const uint sid = gl_LocalInvocationID.x - SG * SG_SIZE;  // a stager's index among stagers
#else
  const bool multiplier = true, stager = true;
  const uint sid = gl_LocalInvocationID.x;
#endif
  const uint wm = sgid / WN, wn = sgid % WN;
  const uint tiles_m = (pc.M + BM - 1) / BM;
  const uint tiles = tiles_m * ((pc.N + BN - 1) / BN);
  const uint scratch = sgid * 64u;
  // Each slice takes the same whole number of k-steps; the last may get fewer, or none.
  const uint slice_k = ((pc.K + BK - 1) / BK + SPLITK - 1) / SPLITK * BK;

  // M fastest: neighbouring workgroups share a weight tile, so a weight too big for the L2 is
  // still read from memory once. Slices of one tile are `tiles` apart.
  for (uint t = gl_WorkGroupID.x; t < tiles * SPLITK; t += gl_NumWorkGroups.x) {
    const uint tile = t % tiles, slice = t / tiles;
    const uint m0 = (tile % tiles_m) * BM;
    const uint n0 = (tile / tiles_m) * BN;

    MAT_ACC acc[FM][FN];
    [[unroll]] for (uint j = 0; j < FN; ++j) {
      MAT_ACC init = MAT_ACC(0.0);
      if (pc.has_bias != 0u && slice == 0u && multiplier) {
        const uint nt = n0 + (wn * FN + j) * 16u;
        for (uint e = lane; e < 64u; e += SG_SIZE) {  // 16 rows of 4 uvec4, all rows alike
          const uint n = nt + (e % 4u) * 4u;
          smem[scratch + e] = uvec4(floatBitsToUint(n < pc.N ? float(bias[n]) : 0.0),
                                    floatBitsToUint(n + 1u < pc.N ? float(bias[n + 1u]) : 0.0),
                                    floatBitsToUint(n + 2u < pc.N ? float(bias[n + 2u]) : 0.0),
                                    floatBitsToUint(n + 3u < pc.N ? float(bias[n + 3u]) : 0.0));
        }
        subgroupMemoryBarrierShared();
        subgroupBarrier();
        MAT_LOAD(init, smem, scratch, 4u, false);
        subgroupBarrier();  // the scratch is rewritten for the next j
      }
      [[unroll]] for (uint i = 0; i < FM; ++i) acc[i][j] = init;
    }

    // The k loop, kept inline in main (as functions over a global accumulator array it ran
    // 10-15% slower on the H100), unrolled STEP times so register slots and shared stages are
    // constants. Past k_end the loads read zeros, so a trip past the end multiplies zeros.
    const uint k_begin = slice * slice_k, k_end = min(pc.K, k_begin + slice_k);
    if (stager) {
      [[unroll]] for (uint d = 0; d < AHEAD; ++d) load_x(d, m0, k_begin + d * BK, k_end, sid);
      [[unroll]] for (uint d = 0; d < WAHEAD; ++d) load_w(d, n0, k_begin + d * BK, k_end, sid);
    }
    barrier();  // every subgroup is done with its scratch before the staging overwrites it
#if BUF == 3 || WS
    // The first k-step staged before the loop (PW: the second one fetched as well).
    if (stager) {
      store_tile(0u, 0u, 0u, sid);
#if WS
      load_x(0u, m0, k_begin + BK, k_end, sid);
      load_w(0u, n0, k_begin + BK, k_end, sid);
#endif
    }
    barrier();
#endif
    for (uint k0 = k_begin; k0 < k_end; k0 += STEP * BK) {
      [[unroll]] for (uint d = 0; d < STEP; ++d) {
        const uint k = k0 + d * BK;
        const uint stage = BUF == 3 || WS != 0 ? d : 0u;
#if WS
        if (stager) {
          // The next k-step into the other stage, which the multipliers left a step ago, while
          // they read this one; then the one after that from global memory.
          store_tile(0u, 0u, stage ^ 1u, sid);
          load_x(0u, m0, k + 2u * BK, k_end, sid);
          load_w(0u, n0, k + 2u * BK, k_end, sid);
        }
#else
#if BUF == 1
        load_x(0u, m0, k, k_end, sid);
        load_w(0u, n0, k, k_end, sid);
#endif
#if BUF == 3
        load_x(0u, m0, k + BK, k_end, sid);  // stored into the other stage after the MMAs
        load_w(0u, n0, k + BK, k_end, sid);
#else
        store_tile(d % SLOTS, d % WSLOTS, 0u, sid);
        barrier();
#endif
#if BUF == 2 || BUF == 4
        // Refill the slots just staged.
        load_x(d % SLOTS, m0, k + AHEAD * BK, k_end, sid);
        load_w(d % WSLOTS, n0, k + WAHEAD * BK, k_end, sid);
#endif
#endif
        const uint A_BASE = stage * STAGE4, B_BASE = A_BASE + BM * ROW4;
        if (multiplier) {
          [[unroll]] for (uint kk = 0; kk < BK / 8; kk += 2u) {  // 16 halves = 2 uvec4
            MAT_A a[FM];
            [[unroll]] for (uint i = 0; i < FM; ++i) {
              MAT_LOAD(a[i], smem, A_BASE + (wm * FM + i) * 16u * ROW4 + kk, ROW4, false);
            }
            [[unroll]] for (uint j = 0; j < FN; ++j) {
              MAT_B b;
              MAT_LOAD(b, smem, B_BASE + (wn * FN + j) * 16u * ROW4 + kk, ROW4, true);
              [[unroll]] for (uint i = 0; i < FM; ++i) {
                acc[i][j] = MAT_MULADD(a[i], b, acc[i][j]);
              }
            }
          }
        }
#if BUF == 3 && !WS
        // The other stage was last read a step ago, which every subgroup has left.
        store_tile(0u, 0u, stage ^ 1u, sid);
#endif
        barrier();
      }
    }

#if SPLIT
    // Hand this slice's partial over; the last slice of the tile to arrive finishes it.
    const uint counters = (tiles + 15u) & ~15u;
    const uint base = counters + (slice * tiles + tile) * (BM * BN);
    if (multiplier) {
      [[unroll]] for (uint i = 0; i < FM; ++i) {
        [[unroll]] for (uint j = 0; j < FN; ++j) {
          MAT_STORE(acc[i][j], partial, base + (wm * FM + i) * 16u * BN + (wn * FN + j) * 16u,
                         BN, false);
        }
      }
    }
    memoryBarrierBuffer();  // the partial is visible before the counter says it is there
    barrier();
    if (gl_LocalInvocationID.x == 0u) last_slice = atomicAdd(counter[tile], 1u);
    barrier();
    if (last_slice != SPLITK - 1u) continue;  // uniform: read from shared after a barrier
    memoryBarrierBuffer();  // and the others' partials are read after their counts
    // Sums the slices' partials with plain vec4 loads (adding cooperative matrices trips
    // Debian 12's spirv-opt: MergeAddAddArithmetic crashes on their type). This loop is the
    // dispatch's tail, so every slice's partial of SUM_BATCH vec4s is loaded before any is
    // added: one vec4 at a time, each would wait out an L2 round trip.
    const uint first4 = (counters + tile * (BM * BN)) / 4u, slice4 = tiles * (BM * BN) / 4u;
    for (uint i0 = 0; i0 < SUM_ITERS; i0 += SUM_BATCH) {
      vec4 sum[SUM_BATCH];
      [[unroll]] for (uint b = 0; b < SUM_BATCH; ++b) {
        const uint e = gl_LocalInvocationID.x + (i0 + b) * WG;
        sum[b] = vec4(0.0);
        if ((BM * BN / 4) % WG != 0 && e >= BM * BN / 4) continue;
        [[unroll]] for (uint s = 0; s < SPLITK; ++s) sum[b] += partial4[first4 + s * slice4 + e];
      }
      [[unroll]] for (uint b = 0; b < SUM_BATCH; ++b) {
        const uint e = gl_LocalInvocationID.x + (i0 + b) * WG;
        const uint m = m0 + (e * 4u) / BN, n = n0 + (e * 4u) % BN;
        if (((BM * BN / 4) % WG != 0 && e >= BM * BN / 4) || m >= pc.M) continue;
        if (n + 4u <= pc.N && (pc.N & 3u) == 0u) {
          out4[(m * pc.N + n) >> 2] = VEC4_T(sum[b]);  // 16-byte aligned: N % 4 == 0
        } else {
          [[unroll]] for (uint c = 0; c < 4u; ++c) {
            if (n + c < pc.N) out_[m * pc.N + n + c] = FLOAT_T(sum[b][c]);
          }
        }
      }
    }
    if (gl_LocalInvocationID.x == 0u) counter[tile] = 0u;  // ready for the next dispatch
#else

    if (multiplier) {
      [[unroll]] for (uint i = 0; i < FM; ++i) {
        [[unroll]] for (uint j = 0; j < FN; ++j) {
          const uint mt = m0 + (wm * FM + i) * 16u;
          const uint nt = n0 + (wn * FN + j) * 16u;
          if (mt + 16u <= pc.M && nt + 16u <= pc.N && (pc.N & 3u) == 0u) {
#if F16
            MAT_STORE(MAT_ACC16(acc[i][j]), out_, mt * pc.N + nt,
                           pc.N, false);
#else
            MAT_STORE(acc[i][j], out_, mt * pc.N + nt, pc.N, false);
#endif
          } else if (mt < pc.M && nt < pc.N) {
            MAT_STORE(acc[i][j], smem, scratch, 4u, false);
            subgroupMemoryBarrierShared();
            subgroupBarrier();
            for (uint e = lane; e < 256u; e += SG_SIZE) {
              const uint m = mt + e / 16u, n = nt + e % 16u;
              if (m < pc.M && n < pc.N) {
                out_[m * pc.N + n] = FLOAT_T(uintBitsToFloat(smem[scratch + e / 4u][e % 4u]));
              }
            }
            subgroupBarrier();  // the scratch is rewritten for the next tile
          }
        }
      }
    }
#endif
  }
}
