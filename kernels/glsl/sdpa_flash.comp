// sdpa prefill as flash attention on tensor cores: GL_NV_cooperative_matrix, or
// GL_KHR_cooperative_matrix with KHR 1 (coopmat_api.glsl), 16x16x16 fp16 tiles with fp32
// accumulators. q, K, V and out are fp16; scores, the softmax and its sums are fp32.
//
// A workgroup owns a tile of BR query rows of one KV head. The rows are (token, query head of
// the KV head's group) pairs, token-major, so every head of the group multiplies each K and V
// block the workgroup stages (GQA). The attended cache streams through in blocks of BC
// positions; per block
//   S = Q K^T                       (Q's fragments stay in registers for the whole tile),
//   m' = max(m, rowmax S), P = exp(S - m'), l = l exp(m - m') + rowsum P   (base 2, fp32),
//   O = diag(exp(m - m')) O + P V   (P rounded to fp16 for the multiply; l sums the rounded P).
// At HD 256 (LAZY) m' stays m unless rowmax S passes it by more than kSlack: any m' at or above
// a row's max less kSlack gives the same softmax, P <= 2^kSlack stays far inside fp16's range,
// and O's 16 fragments are rescaled only in the blocks where some row of the subgroup moves its
// m' (its first scores, then seldom). At HD 128 the subgroup reduction that decides it costs
// more than the rescale it saves.
// Each 16-row band of the tile has DSPLIT subgroups, each owning the band's accumulators over
// HD / DSPLIT of the head dim. With DSPLIT 1 a subgroup holds its band's scores, softmax state
// and accumulators [16, HD], so the softmax needs no workgroup barrier, only the staging does.
// With DSPLIT 2 (the accumulators of HD 256 alone fill 128 registers a lane, and q's fragments
// 64 more, so every such variant spilled) each subgroup of a band computes the scores of half
// the block's positions, a workgroup barrier joins them, and both run the band's softmax on
// all of them (the same values: each keeps its own P and state, no exchange), then multiply P
// by their half of V.
// Where a block has fewer than 4 fragments of positions, S sums the head dim's even and odd
// fragments in two accumulators, so that each subgroup has 4 independent MMA chains in flight
// rather than 2 (an MMA's result feeds the next of its chain only after its latency).
// Causal: blocks past the tile's last token are never visited; within a block, positions past
// a row's own token are masked.
//
// Which row an accumulator component is in is the implementation's choice, the same for every
// matrix of one type: `rows`, a matrix whose element (r, c) is r, tells each invocation the row
// of its component i, so rows are scaled in registers (by alpha, then by 1 / l).
//
// Split over the cache (SPLITS > 1, for tiles too few to fill the device): each of a tile's
// SPLITS workgroups takes a run of its blocks and leaves its rows' (m, l) and unnormalised O in
// the workspace, then bumps the tile's counter; the split that arrives last merges the splits in
// split order (so the result does not depend on which arrived last), writes out and zeroes the
// counter. One dispatch, and no workgroup waits for another.
//
// Knobs: HD the head dim (exactly), BR rows a tile (16 per subgroup), BC positions a block,
// STAGES how far a block's steps overlap: 1 a block is fetched, then staged, and the scores
// overwrite its K (three workgroup barriers a block); 2 the next block is fetched into registers
// while this one multiplies; 3 as 2, the scores in rows of their own (two barriers); 4 as 3,
// the next block staged into a second K and V buffer (one barrier). SPLITS slices of the cache
// a tile. DSPLIT subgroups a 16-row band, each with HD / DSPLIT of its accumulators.
// Bindings and push constants: sdpa_push.glsl; the workspace only where SPLITS > 1.
#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_shuffle : require
#include "coopmat_api.glsl"

#ifndef HD
#define HD 128
#endif
#ifndef BR
#define BR 64
#endif
#ifndef BC
#define BC 64
#endif
#ifndef STAGES
#define STAGES 1
#endif
#ifndef SPLITS
#define SPLITS 1
#endif
#ifndef DSPLIT
#define DSPLIT 1
#endif

#if HD % 16 != 0 || BR % 16 != 0 || BC % 16 != 0
#error "sdpa_flash: HD, BR and BC are multiples of 16"
#endif

#if STAGES < 1 || STAGES > 4
#error "sdpa_flash: STAGES is 1, 2, 3 or 4"
#endif

#define SG_SIZE 32
#define BANDS (BR / 16)     // 16-row bands of the tile
#define SG (BANDS * DSPLIT)  // subgroups: DSPLIT a band
#define WG (SG * SG_SIZE)
#define DF (HD / 16)  // 16-wide fragments along the head dim
#define CF (BC / 16)  // ... along a block
#define DFS (DF / DSPLIT)  // ... of a subgroup's accumulators
#define CFS (CF / DSPLIT)  // ... of a subgroup's scores

#if DSPLIT != 1 && DSPLIT != 2 || CF % DSPLIT != 0
#error "sdpa_flash: DSPLIT is 1 or 2 and divides BC / 16"
#endif

// Shared memory in uvec4 (8 halves, 4 floats). A staged q, K or V row is HD halves plus 16
// bytes, so the 8 rows one fragment load reads start in different banks; a band's score row
// is BC floats plus 16 bytes, and with DSPLIT 1 its P (fp16) overwrites the row's first half
// (with DSPLIT 2 each subgroup's P has rows of its own, `own`). q is staged once a tile, before
// any block, over the whole array.
#define ROW4 (HD / 8 + 1)
#define SROW4 (BC / 4 + 1)
#define KV4 (BC * ROW4)
#define Q4 (BR * ROW4)
#define S4 (16 * SROW4)
#define MAX4(a, b) ((a) > (b) ? (a) : (b))
#if STAGES == 4
// [K 0][V 0][K 1][V 1][the subgroups' scores]: block i in buffer i % 2.
#define SCORES0 (4 * KV4)
#define K0(b) ((b) * 2u * KV4)
#define V0(b) (K0(b) + KV4)
shared uvec4 smem[MAX4(SCORES0 + BANDS * S4, Q4)];
#elif STAGES == 3
// [K][V][the subgroups' scores]
#define SCORES0 (2 * KV4)
#define K0(b) 0u
#define V0(b) KV4
shared uvec4 smem[MAX4(SCORES0 + BANDS * S4, Q4)];
#else
// [front: each block's K, then the subgroups' scores][V]
#define SCORES0 0
#define FRONT4 MAX4(KV4, BANDS * S4)
#define K0(b) 0u
#define V0(b) FRONT4
shared uvec4 smem[MAX4(FRONT4 + KV4, Q4)];
#endif
// Accumulators of S a fragment of positions: 2 (even and odd head-dim fragments) where a block
// has fewer than 4 fragments, so 4 chains are in flight.
#if BC / 16 >= 4 || HD / 16 < 2
#define SPARTS 1
#else
#define SPARTS 2
#endif
#if DSPLIT == 1
#define OWN smem  // a subgroup's P and its scratch: its band's score rows
#define OROW4 SROW4
#else
// A subgroup's P (BC halves a row) and its scratch (a fragment's 16 rows of 4 uvec4).
#define OROW4 MAX4(BC / 8 + 1, 4)
shared uvec4 own_rows[SG * 16 * OROW4];
#define OWN own_rows
#endif
// Per subgroup row: alpha this block, 1 / l at the end (per tile row in the splits' merge).
shared float row_scale[SG * 16];
shared float row_table[256];  // the 16x16 matrix whose element (r, c) is r

layout(local_size_x = WG) in;

#include "sdpa_push.glsl"

layout(std430, binding = 0) readonly buffer QBuf { uvec4 q4[]; };
layout(std430, binding = 1) readonly buffer KBuf { uvec4 k4[]; };
layout(std430, binding = 2) readonly buffer VBuf { uvec4 v4[]; };
layout(std430, binding = 3) writeonly buffer OBuf { uvec4 o4[]; };
// A score below any real one (finite, so that exp2(a - b) of two of them is never NaN).
const float kNoScore = -1.0e30;
#define MERGE_ROWS BR
#include "sdpa_split_merge.glsl"

#define LAZY (HD > 128)
#if LAZY
const float kSlack = 8.0;  // log2 of the largest P: 256
#endif

// One K and one V block in registers: BC rows of HD / 8 uvec4 each.
#define CHUNKS (BC * HD / 8)
#define PER ((CHUNKS + WG - 1) / WG)
uvec4 k_regs[PER], v_regs[PER];

// Fetches positions j0 .. j0 + BC of KV head `kvh`, zeros at and past `end` (the V rows too:
// P is 0 there, and 0 times a stale NaN would not be).
void fetch(uint j0, uint end, uint kvh) {
  [[unroll]] for (uint i = 0; i < PER; ++i) {
    const uint e = gl_LocalInvocationID.x + i * WG;
    const uint j = j0 + e / (HD / 8);
    k_regs[i] = uvec4(0u);
    v_regs[i] = uvec4(0u);
    if ((CHUNKS % WG == 0 || e < CHUNKS) && j < end) {
      const uint index = (j * pc.kv_heads + kvh) * (HD / 8) + e % (HD / 8);
      k_regs[i] = k4[index];
      v_regs[i] = v4[index];
    }
  }
}

// Stores the fetched block into K and V buffer `b`.
void stage(uint b) {
  [[unroll]] for (uint i = 0; i < PER; ++i) {
    const uint e = gl_LocalInvocationID.x + i * WG;
    if (CHUNKS % WG == 0 || e < CHUNKS) {
      const uint at = (e / (HD / 8)) * ROW4 + e % (HD / 8);
      smem[K0(b) + at] = k_regs[i];
      smem[V0(b) + at] = v_regs[i];
    }
  }
}

void main() {
  const uint lid = gl_LocalInvocationID.x, sg = gl_SubgroupID, lane = gl_SubgroupInvocationID;
  const uint group = pc.heads / pc.kv_heads;
  const uint tile_tokens = BR / group;  // the descriptor keeps group <= BR
  const uint tile_rows = tile_tokens * group;
  const uint tiles = (pc.tokens + tile_tokens - 1u) / tile_tokens;
  const uint work = tiles * pc.kv_heads;
  const float scale2 = pc.scale * 1.4426950408889634;  // scores in base 2: exp2 is the native op
  // The softmax row of this lane and its half of the row's chunks of 8 positions.
  const uint band_row = lane / 2u, half_row = lane % 2u;
  const uint band = sg / DSPLIT, dpart = sg % DSPLIT;
  const uint row = band * 16u + band_row, sg_row = sg * 16u + band_row;
  const uint sbase = SCORES0 + band * S4, srow = sbase + band_row * SROW4;
#if DSPLIT == 1
  const uint obase = sbase;
#else
  const uint obase = sg * 16u * OROW4;
#endif
  const uint orow = obase + band_row * OROW4;

  for (uint e = lid; e < 256u; e += WG) row_table[e] = float(e / 16u);
  barrier();
  MAT_ACC rows;
  MAT_LOAD(rows, row_table, 0u, 16u, false);

  for (uint id = gl_WorkGroupID.x; id < work * SPLITS; id += gl_NumWorkGroups.x) {
    const uint w = id / SPLITS, split = id % SPLITS;  // w: the (tile, KV head) pair
    const uint kvh = w % pc.kv_heads;
    const uint tile = tiles - 1u - w / pc.kv_heads;  // the longest (latest tokens) first
    const uint t0 = tile * tile_tokens, t_end = min(pc.tokens, t0 + tile_tokens);
    const uint attended_end = attended(t_end - 1u);  // positions the tile's last token attends
#if SPLITS > 1
    // This split's whole blocks of them, [begin, end): empty where there are fewer blocks than
    // splits.
    const uint per = ((attended_end + BC - 1u) / BC + SPLITS - 1u) / SPLITS * BC;
    const uint begin = min(attended_end, split * per), end = min(attended_end, begin + per);
#else
    const uint begin = 0u, end = attended_end;
#endif
    const uint t = t0 + row / group;
    const bool real_row = row < tile_rows && t < pc.tokens;
    // Padding rows attend what the last token does: finite, never written.
    const uint limit = real_row ? attended(t) : attended_end;

    // q [tile rows, HD] through shared memory (its rows are not equally spaced in q), zeros in
    // the padding rows; each subgroup keeps its band's fragments.
    for (uint e = lid; e < BR * (HD / 8); e += WG) {
      const uint r = e / (HD / 8), tr = t0 + r / group;
      uvec4 v = uvec4(0u);
      if (r < tile_rows && tr < pc.tokens) {
        v = q4[(tr * pc.heads + kvh * group + r % group) * (HD / 8) + e % (HD / 8)];
      }
      smem[r * ROW4 + e % (HD / 8)] = v;
    }
    barrier();
    MAT_A qf[DF];
    [[unroll]] for (uint d = 0; d < DF; ++d) {
      MAT_LOAD(qf[d], smem, band * 16u * ROW4 + d * 2u, ROW4, false);
    }
    barrier();  // the first block overwrites the staged q

    float m = kNoScore, l = 0.0;
    MAT_ACC o[DFS];  // head-dim fragments dpart * DFS .. of the band's O
    [[unroll]] for (uint d = 0; d < DFS; ++d) o[d] = MAT_ACC(0.0);

#if STAGES >= 2
    fetch(begin, end, kvh);
#endif
#if STAGES == 4
    if (begin < end) stage(0u);
#endif
    for (uint j0 = begin, b = 0u; j0 < end; j0 += BC, b ^= 1u) {
#if STAGES == 1
      fetch(j0, end, kvh);
#endif
#if STAGES < 4
      stage(0u);
#endif
      // Block j0 is staged; with STAGES 4 also, every subgroup is done with the other buffer.
      barrier();
#if STAGES >= 2
      if (j0 + BC < end) fetch(j0 + BC, end, kvh);  // in flight while this block multiplies
#endif
      // This subgroup's fragments of positions: dpart * CFS ..
      MAT_ACC s[SPARTS][CFS];
      [[unroll]] for (uint h = 0; h < SPARTS; ++h) {
        [[unroll]] for (uint c = 0; c < CFS; ++c) s[h][c] = MAT_ACC(0.0);
      }
      [[unroll]] for (uint d = 0; d < DF; ++d) {
        [[unroll]] for (uint c = 0; c < CFS; ++c) {
          MAT_B kf;  // K^T [d, position]: the staged K rows read column-major
          MAT_LOAD(kf, smem, K0(b) + (dpart * CFS + c) * 16u * ROW4 + d * 2u, ROW4, true);
          s[d % SPARTS][c] = MAT_MULADD(qf[d], kf, s[d % SPARTS][c]);
        }
      }
#if SPARTS == 2
      // Component by component: Debian 12's SPIRV-Tools crashes folding a cooperative-matrix add.
      [[unroll]] for (uint c = 0; c < CFS; ++c) {
        for (int i = 0; i < s[0][c].length(); ++i) s[0][c][i] += s[1][c][i];
      }
#endif
#if STAGES < 3
      barrier();  // every subgroup is done with K, which its scores overwrite
#endif
      [[unroll]] for (uint c = 0; c < CFS; ++c) {
        MAT_STORE(s[0][c], smem, sbase + (dpart * CFS + c) * 4u, SROW4, false);
      }
#if DSPLIT == 1
      subgroupMemoryBarrierShared();
      subgroupBarrier();
#else
      barrier();  // the band's other half of the scores
#endif

      // The lane pair of a row: each takes every other chunk of 8 positions.
      vec4 x[CF][2];
      float row_max = kNoScore;
      [[unroll]] for (uint i = 0; i < CF; ++i) {
        const uint chunk = 2u * i + half_row;
        [[unroll]] for (uint w = 0; w < 2; ++w) {
          const vec4 sc = uintBitsToFloat(smem[srow + 2u * chunk + w]) * scale2;
          const uint j = j0 + chunk * 8u + w * 4u;
          x[i][w] = vec4(j < limit ? sc.x : kNoScore, j + 1u < limit ? sc.y : kNoScore,
                         j + 2u < limit ? sc.z : kNoScore, j + 3u < limit ? sc.w : kNoScore);
          row_max = max(row_max, max(max(x[i][w].x, x[i][w].y), max(x[i][w].z, x[i][w].w)));
        }
      }
      row_max = max(row_max, subgroupShuffleXor(row_max, 1u));
#if LAZY
      const float m_new = row_max > m + kSlack ? row_max : m;
#else
      const float m_new = max(m, row_max);
#endif
      const float alpha = exp2(m - m_new);  // 0 on a row's first scores, 1 while m' stays
      m = m_new;
#if DSPLIT == 1
      subgroupBarrier();  // every lane has read its scores before P overwrites them
#endif
      float sum = 0.0;
      [[unroll]] for (uint i = 0; i < CF; ++i) {
        f16vec4 p[2];
        [[unroll]] for (uint w = 0; w < 2; ++w) {
          // A masked position's exp2(kNoScore - m_new) is 0, or 1 where the row has no real
          // score yet; select 0 either way.
          const vec4 e = exp2(x[i][w] - m_new);
          p[w] = f16vec4(mix(vec4(0.0), e, greaterThan(x[i][w], vec4(kNoScore))));
          sum += dot(vec4(p[w]), vec4(1.0));  // the rounded P, as the multiply sees it
        }
        OWN[orow + 2u * i + half_row] = uvec4(packFloat2x16(p[0].xy), packFloat2x16(p[0].zw),
                                               packFloat2x16(p[1].xy), packFloat2x16(p[1].zw));
      }
      sum += subgroupShuffleXor(sum, 1u);
      l = l * alpha + sum;
      if (half_row == 0u) row_scale[sg_row] = alpha;
      subgroupMemoryBarrierShared();
      subgroupBarrier();

#if LAZY
      if (subgroupMin(alpha) < 1.0)  // the same in every lane
#endif
      {
        for (int i = 0; i < rows.length(); ++i) {
          const float a = row_scale[sg * 16u + uint(rows[i])];
          [[unroll]] for (uint d = 0; d < DFS; ++d) o[d][i] *= a;
        }
      }
      [[unroll]] for (uint c = 0; c < CF; ++c) {
        MAT_A pf;  // P [row, position], 16 halves = 2 uvec4 a fragment column
        MAT_LOAD(pf, OWN, obase + c * 2u, OROW4, false);
        [[unroll]] for (uint d = 0; d < DFS; ++d) {
          MAT_B vf;
          MAT_LOAD(vf, smem, V0(b) + c * 16u * ROW4 + (dpart * DFS + d) * 2u, ROW4, false);
          o[d] = MAT_MULADD(pf, vf, o[d]);
        }
      }
#if STAGES == 4
      // Into the other buffer, which every subgroup finished with before this block's barrier.
      if (j0 + BC < end) stage(b ^ 1u);
#else
      barrier();  // the next block's staging overwrites K, the scores and V
#endif
    }

#if SPLITS > 1
    // Each fragment goes through the band's scratch as fp32 (4 uvec4 a row), as the unsplit
    // path's does, a lane copying 8 floats of its row to the workspace.
    if (half_row == 0u && dpart == 0u) store_split_state(w, split, row, m, l);
    [[unroll]] for (uint d = 0; d < DFS; ++d) {
      MAT_STORE(o[d], OWN, obase, 4u, false);
      subgroupMemoryBarrierShared();
      subgroupBarrier();
      [[unroll]] for (uint h = 0; h < 2; ++h) {
        const uint c4 = half_row * 2u + h;  // of the fragment row's 4 uvec4
        store_split_part(w, split, row, (dpart * DFS + d) * 4u + c4,
                         uintBitsToFloat(OWN[obase + band_row * 4u + c4]));
      }
      subgroupBarrier();  // read before the next fragment overwrites it
    }
    if (!last_split_arrived(w)) continue;
    merge_splits(w, t0, tile_rows, group, kvh);
#else
    // Rows normalised by 1 / l (every row attends at least one position), then each fragment
    // through the band's scratch as fp16, a lane writing 8 halves of its row.
    if (half_row == 0u) row_scale[sg_row] = 1.0 / l;
    subgroupMemoryBarrierShared();
    subgroupBarrier();
    for (int i = 0; i < rows.length(); ++i) {
      const float a = row_scale[sg * 16u + uint(rows[i])];
      [[unroll]] for (uint d = 0; d < DFS; ++d) o[d][i] *= a;
    }
    const uint out_row = (t * pc.heads + kvh * group + row % group) * (HD / 8);
    [[unroll]] for (uint d = 0; d < DFS; ++d) {
      const MAT_ACC16 h = MAT_ACC16(o[d]);  // fp16 [16, 16]: 2 uvec4 a row
      MAT_STORE(h, OWN, obase, 2u, false);
      subgroupMemoryBarrierShared();
      subgroupBarrier();
      if (real_row) {
        o4[out_row + (dpart * DFS + d) * 2u + half_row] = OWN[obase + band_row * 2u + half_row];
      }
      subgroupBarrier();  // read before the next fragment overwrites it
    }
#endif
    barrier();  // the scratch is the next tile's q staging
  }
}
