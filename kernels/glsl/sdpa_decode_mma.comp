// sdpa decode on tensor cores: GL_NV_cooperative_matrix, or GL_KHR_cooperative_matrix with KHR 1
// (coopmat_api.glsl), 16x16x16 fp16 tiles with fp32 accumulators. q, K, V and out are fp16;
// scores, the softmax and its sums are fp32.
//
// For a few tokens with GQA (up to 16 query rows a KV head) the scalar decode kernels' products
// grow with the rows while the cache they read does not; here the rows are one 16-row band and
// the products go to the tensor cores, so 16 rows cost what 4 do. A workgroup owns the band of
// one KV head and a split of its cache; each of its SGS subgroups takes its own blocks of BC
// positions (block b of the split goes to subgroup b % SGS), with no workgroup barrier in the
// loop: the block's K rows (and with V_STAGED its V rows) are fetched in 16-byte loads a block
// ahead and staged in the subgroup's own shared memory, from which the fragments are read. Per
// block
//   S = Q K^T      (q's fragments from shared memory: registers are what bounds the subgroups a
//                  multiprocessor holds),
//   m' = m unless rowmax S passes it by more than kSlack, P = exp2(S - m'), l = l exp2(m - m') +
//   rowsum P       (base 2, fp32, through the subgroup's scratch: which row and column a
//                  fragment's component holds is the implementation's choice),
//   O = diag(exp2(m - m')) O + P V   (P rounded to fp16; l sums the rounded P; V's fragments
//                  from the staged rows, or without V_STAGED straight from the cache).
// Any m' at or above a row's max less kSlack gives the same softmax, and P <= 2^kSlack stays far
// inside fp16's range, so O's fragments are rescaled only where some row moves its m' (its
// first scores, then seldom).
// The cache's last block, where L is not a multiple of BC, is read from L - BC instead (the
// descriptor keeps L >= BC), its positions before the block's own start masked: nothing past
// the L pushed is read.
//
// At the end the subgroups' (m, l, O) are merged in the workgroup: each scales its O to the
// workgroup's m, and the O's are summed pairwise through shared memory. The cache is always
// split (a band's rows alone never fill the device): each split leaves its rows' (m, l) and
// unnormalised O in the workspace and the last to arrive merges them (sdpa_split_merge.glsl).
//
// Which row an accumulator component is in is the implementation's choice, the same for every
// matrix of one type: `rows`, a matrix whose element (r, c) is r, tells each invocation the row
// of its component i, so rows are scaled in registers.
//
// Knobs: HD the head dim (exactly), BC positions a block, SGS subgroups a workgroup, SPLITS
// slices of the cache a band, V_STAGED whether V goes through shared memory as K does.
// Bindings and push constants: sdpa_push.glsl; the workspace binding 4.
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
#ifndef BC
#define BC 16
#endif
#ifndef SGS
#define SGS 4
#endif
#ifndef SPLITS
#define SPLITS 16
#endif
#ifndef V_STAGED
#define V_STAGED 1
#endif
// Timing ablations, set by tools/decode_ablation.cpp only (no variant sets them; the output is
// then wrong): what the time is without the splits' hand-over (ABLATE_HANDOVER 1: the last
// split merges nothing), without any arithmetic on the cache (ABLATE_ARITHMETIC 1: the blocks
// are only fetched) and without reading the cache (ABLATE_LOADS 1: the fetched K and V are made
// from their addresses, everything else as the variant).
#ifndef ABLATE_HANDOVER
#define ABLATE_HANDOVER 0
#endif
#ifndef ABLATE_ARITHMETIC
#define ABLATE_ARITHMETIC 0
#endif
#ifndef ABLATE_LOADS
#define ABLATE_LOADS 0
#endif

#if HD % 16 != 0 || BC % 16 != 0
#error "sdpa_decode_mma: HD and BC are multiples of 16"
#endif
#if SPLITS < 2
#error "sdpa_decode_mma: SPLITS is at least 2"
#endif
#if SGS != 1 && SGS != 2 && SGS != 4 && SGS != 8
#error "sdpa_decode_mma: SGS is 1, 2, 4 or 8"
#endif

#define SG_SIZE 32
#define WG (SGS * SG_SIZE)
#define DF (HD / 16)  // 16-wide fragments along the head dim
#define CF (BC / 16)  // ... along a block
#define KV4 (BC * HD / 8 / SG_SIZE)  // 16-byte chunks a lane fetches of a block's K (and V)
#if BC * HD / 8 % SG_SIZE != 0
#error "sdpa_decode_mma: a block's 16-byte chunks are a multiple of the subgroup size"
#endif

// Shared memory in uvec4 (8 halves, 4 floats). Staged rows are HD halves plus 16 bytes, so the 8
// rows one fragment load reads start in different banks. smem serves each subgroup's scratch
// in the loop, then the O's of half the subgroups for the pairwise sum (HD floats a row plus 16
// bytes). A subgroup's scratch holds its K block, which its band's scores overwrite (BC floats
// a row plus 16 bytes; P in fp16 overwrites a row's first half), and with V_STAGED its V block.
#define ROW4 (HD / 8 + 1)
#define SROW4 (BC / 4 + 1)
#define OROW4 (HD / 4 + 1)
#define MAX4(a, b) ((a) > (b) ? (a) : (b))
#define KS4 MAX4(BC * ROW4, 16 * SROW4)
#define SCRATCH4 (KS4 + V_STAGED * BC * ROW4)
shared uvec4 smem[MAX4(SGS * SCRATCH4, MAX4(SGS / 2, 1) * 16 * OROW4)];
shared uvec4 q_rows[16 * ROW4];  // the band's q rows, zeros in the padding rows
// Per subgroup row: alpha this block; then its weight in the workgroup's merge.
shared float row_scale[SGS * 16];
shared float sg_m[SGS * 16], sg_l[SGS * 16];  // each subgroup's (m, l) at the end
shared float row_table[256];  // the 16x16 matrix whose element (r, c) is r

layout(local_size_x = WG) in;

#include "sdpa_push.glsl"

// K and V are not readonly: a cooperative-matrix load's buffer parameter carries no readonly.
layout(std430, binding = 0) readonly buffer QBuf { uvec4 q4[]; };
layout(std430, binding = 1) buffer KBuf { uvec4 k4[]; };
layout(std430, binding = 2) buffer VBuf { uvec4 v4[]; };
layout(std430, binding = 3) writeonly buffer OBuf { uvec4 o4[]; };

// A score below any real one (finite, so that exp2(a - b) of two of them is never NaN).
const float kNoScore = -1.0e30;
const float kSlack = 8.0;  // log2 of the largest P: 256

#define MERGE_ROWS 16
#include "sdpa_split_merge.glsl"

// The subgroup's shared-memory writes visible to its lanes, and nothing else ordered: a barrier
// that also ordered buffer memory could wait on the next block's loads in flight.
#define SUBGROUP_SYNC()                                                        \
  controlBarrier(gl_ScopeSubgroup, gl_ScopeSubgroup, gl_StorageSemanticsShared, \
                 gl_SemanticsAcquireRelease)

// The block of BC positions from `from` of KV head `kvh`: K into kr, with V_STAGED V into vr.
void fetch(out uvec4 kr[KV4], out uvec4 vr[KV4], uint from, uint kvh) {
  [[unroll]] for (uint i = 0; i < KV4; ++i) {
    const uint e = gl_SubgroupInvocationID + i * SG_SIZE;
    const uint at = ((from + e / (HD / 8)) * pc.kv_heads + kvh) * (HD / 8) + e % (HD / 8);
#if ABLATE_LOADS
    // Finite halves below 1 that the compiler cannot fold (a multiply and masks a chunk).
    const uint h = at * 2654435761u;
    kr[i] = uvec4(h, h ^ 0x5555u, h + 7u, h * 3u) & 0x3bff3bffu;
    vr[i] = uvec4(h + 1u, h ^ 0x3333u, h + 9u, h * 5u) & 0x3bff3bffu;
#else
    kr[i] = k4[at];
#if V_STAGED
    vr[i] = v4[at];
#endif
#endif
  }
}

// Every row of this subgroup's O scaled by row_scale[its subgroup row].
void scale_rows(inout MAT_ACC o[DF], uint sg) {
  MAT_ACC rows;
  MAT_LOAD(rows, row_table, 0u, 16u, false);
  for (int i = 0; i < rows.length(); ++i) {
    const float a = row_scale[sg * 16u + uint(rows[i])];
    [[unroll]] for (uint d = 0; d < DF; ++d) o[d][i] *= a;
  }
}

void main() {
  const uint lid = gl_LocalInvocationID.x, sg = gl_SubgroupID, lane = gl_SubgroupInvocationID;
  const uint group = pc.heads / pc.kv_heads;
  const uint tile_tokens = 16u / group;  // the descriptor keeps group <= 16
  const uint tile_rows = tile_tokens * group;
  const uint tiles = (pc.tokens + tile_tokens - 1u) / tile_tokens;
  const uint work = tiles * pc.kv_heads;
  const uint kv_stride4 = pc.kv_heads * (HD / 8);  // uvec4 from one cache position to the next
  const float scale2 = pc.scale * 1.4426950408889634;  // scores in base 2: exp2 is the native op
  // The softmax row of this lane and its half of the row's chunks of 8 positions.
  const uint row = lane / 2u, half_row = lane % 2u;
  const uint obase = sg * SCRATCH4, orow = obase + row * SROW4;

  for (uint e = lid; e < 256u; e += WG) row_table[e] = float(e / 16u);

  for (uint id = gl_WorkGroupID.x; id < work * SPLITS; id += gl_NumWorkGroups.x) {
    const uint w = id / SPLITS, split = id % SPLITS;  // w: the (tile, KV head) pair
    const uint kvh = w % pc.kv_heads;
    const uint tile = tiles - 1u - w / pc.kv_heads;  // the longest (latest tokens) first
    const uint t0 = tile * tile_tokens, t_end = min(pc.tokens, t0 + tile_tokens);
    const uint attended_end = attended(t_end - 1u);  // positions the tile's last token attends
    // This split's whole blocks of them, [begin, end): empty where there are fewer blocks than
    // splits.
    const uint per = ((attended_end + BC - 1u) / BC + SPLITS - 1u) / SPLITS * BC;
    const uint begin = min(attended_end, split * per), end = min(attended_end, begin + per);
    const uint t = t0 + row / group;
    // Padding rows attend what the last token does: finite, never written.
    const uint limit = row < tile_rows && t < pc.tokens ? attended(t) : attended_end;

    // q's rows are not equally spaced in q: staged, zeros in the padding rows.
    for (uint e = lid; e < 16u * (HD / 8); e += WG) {
      const uint r = e / (HD / 8), tr = t0 + r / group;
      uvec4 v = uvec4(0u);
      if (r < tile_rows && tr < pc.tokens) {
        v = q4[(tr * pc.heads + kvh * group + r % group) * (HD / 8) + e % (HD / 8)];
      }
      q_rows[r * ROW4 + e % (HD / 8)] = v;
    }
    barrier();

    float m = kNoScore, l = 0.0;
    MAT_ACC o[DF];
    [[unroll]] for (uint d = 0; d < DF; ++d) o[d] = MAT_ACC(0.0);
    uvec4 kr[KV4], vr[KV4];
    if (begin + sg * BC < end) fetch(kr, vr, min(begin + sg * BC, pc.cache_len - BC), kvh);
    for (uint j0 = begin + sg * BC; j0 < end; j0 += SGS * BC) {
      const uint from = min(j0, pc.cache_len - BC);  // the last block read in full, shifted back
      const uint next = j0 + SGS * BC;
#if ABLATE_ARITHMETIC
      [[unroll]] for (uint i = 0; i < KV4; ++i) l += uintBitsToFloat(kr[i].x ^ vr[i].y);
      if (next < end) fetch(kr, vr, min(next, pc.cache_len - BC), kvh);
      continue;
#endif
      [[unroll]] for (uint i = 0; i < KV4; ++i) {
        const uint e = lane + i * SG_SIZE, at = (e / (HD / 8)) * ROW4 + e % (HD / 8);
        smem[obase + at] = kr[i];
#if V_STAGED
        smem[obase + KS4 + at] = vr[i];
#endif
      }
      SUBGROUP_SYNC();
      if (next < end) fetch(kr, vr, min(next, pc.cache_len - BC), kvh);  // in flight meanwhile
#if !V_STAGED
      // V's fragments are in flight through the scores and the softmax.
      MAT_B vf[CF][DF];
      [[unroll]] for (uint c = 0; c < CF; ++c) {
        const uint at = ((from + c * 16u) * pc.kv_heads + kvh) * (HD / 8);
        [[unroll]] for (uint d = 0; d < DF; ++d) {
          MAT_LOAD(vf[c][d], v4, at + d * 2u, kv_stride4, false);  // V [position, d]
        }
      }
#endif
      MAT_ACC s[CF];
      [[unroll]] for (uint c = 0; c < CF; ++c) {
        s[c] = MAT_ACC(0.0);
        [[unroll]] for (uint d = 0; d < DF; ++d) {
          MAT_A qf;
          MAT_LOAD(qf, q_rows, d * 2u, ROW4, false);
          MAT_B kf;  // K^T [d, position]: the staged K rows read column-major
          MAT_LOAD(kf, smem, obase + c * 16u * ROW4 + d * 2u, ROW4, true);
          s[c] = MAT_MULADD(qf, kf, s[c]);
        }
      }
      SUBGROUP_SYNC();  // every lane is done with K, which the scores overwrite
      [[unroll]] for (uint c = 0; c < CF; ++c) MAT_STORE(s[c], smem, obase + c * 4u, SROW4, false);
      SUBGROUP_SYNC();

      // The lane pair of a row: each takes every other chunk of 8 positions.
      vec4 x[CF][2];
      float row_max = kNoScore;
      [[unroll]] for (uint i = 0; i < CF; ++i) {
        const uint chunk = 2u * i + half_row;
        [[unroll]] for (uint h = 0; h < 2; ++h) {
          const vec4 sc = uintBitsToFloat(smem[orow + 2u * chunk + h]) * scale2;
          const uint j = from + chunk * 8u + h * 4u;
          const bvec4 ok = bvec4(j >= j0 && j < limit, j + 1u >= j0 && j + 1u < limit,
                                 j + 2u >= j0 && j + 2u < limit, j + 3u >= j0 && j + 3u < limit);
          x[i][h] = mix(vec4(kNoScore), sc, ok);
          row_max = max(row_max, max(max(x[i][h].x, x[i][h].y), max(x[i][h].z, x[i][h].w)));
        }
      }
      row_max = max(row_max, subgroupShuffleXor(row_max, 1u));
      const float m_new = row_max > m + kSlack ? row_max : m;
      const float alpha = exp2(m - m_new);  // 0 on a row's first scores, 1 while m' stays
      m = m_new;
      SUBGROUP_SYNC();  // every lane has read its scores before P overwrites them
      float sum = 0.0;
      [[unroll]] for (uint i = 0; i < CF; ++i) {
        f16vec4 p[2];
        [[unroll]] for (uint h = 0; h < 2; ++h) {
          // A masked position's exp2(kNoScore - m_new) is 0, or 1 where the row has no real
          // score yet; select 0 either way.
          const vec4 e = exp2(x[i][h] - m_new);
          p[h] = f16vec4(mix(vec4(0.0), e, greaterThan(x[i][h], vec4(kNoScore))));
          sum += dot(vec4(p[h]), vec4(1.0));  // the rounded P, as the multiply sees it
        }
        smem[orow + 2u * i + half_row] = uvec4(packFloat2x16(p[0].xy), packFloat2x16(p[0].zw),
                                               packFloat2x16(p[1].xy), packFloat2x16(p[1].zw));
      }
      sum += subgroupShuffleXor(sum, 1u);
      l = l * alpha + sum;
      if (half_row == 0u) row_scale[sg * 16u + row] = alpha;
      SUBGROUP_SYNC();

      if (subgroupMin(alpha) < 1.0) scale_rows(o, sg);  // the same in every lane
      [[unroll]] for (uint c = 0; c < CF; ++c) {
        MAT_A pf;  // P [row, position], 16 halves = 2 uvec4 a fragment column
        MAT_LOAD(pf, smem, obase + c * 2u, SROW4, false);
        [[unroll]] for (uint d = 0; d < DF; ++d) {
#if V_STAGED
          MAT_B vf;
          MAT_LOAD(vf, smem, obase + KS4 + c * 16u * ROW4 + d * 2u, ROW4, false);
          o[d] = MAT_MULADD(pf, vf, o[d]);
#else
          o[d] = MAT_MULADD(pf, vf[c][d], o[d]);
#endif
        }
      }
      SUBGROUP_SYNC();  // P and V are read before the next block's staging overwrites them
    }

    // The workgroup's (m, l) per row, and each subgroup's weight exp2(m - m_all) in it.
    if (half_row == 0u) {
      sg_m[sg * 16u + row] = m;
      sg_l[sg * 16u + row] = l;
    }
    barrier();
    float m_all = kNoScore, l_all = 0.0;
    [[unroll]] for (uint s = 0; s < SGS; ++s) m_all = max(m_all, sg_m[s * 16u + row]);
    [[unroll]] for (uint s = 0; s < SGS; ++s) {
      l_all += sg_l[s * 16u + row] * exp2(sg_m[s * 16u + row] - m_all);
    }
    if (half_row == 0u) row_scale[sg * 16u + row] = exp2(m - m_all);  // normalised by the merge
    SUBGROUP_SYNC();
    scale_rows(o, sg);
    // Pairwise: the upper half of the subgroups leave their O, the lower half add it; subgroup
    // 0 leaves the sum, fp32 [16, HD], at the start of smem.
    [[unroll]] for (uint step = SGS / 2u; step >= 1u; step /= 2u) {
      if (sg >= step && sg < 2u * step) {
        [[unroll]] for (uint d = 0; d < DF; ++d) {
          MAT_STORE(o[d], smem, (sg - step) * 16u * OROW4 + d * 4u, OROW4, false);
        }
      }
      barrier();
      if (sg < step) {
        [[unroll]] for (uint d = 0; d < DF; ++d) {
          MAT_ACC other;
          MAT_LOAD(other, smem, sg * 16u * OROW4 + d * 4u, OROW4, false);
          for (int i = 0; i < o[d].length(); ++i) o[d][i] += other[i];
        }
      }
      barrier();
    }
    if (sg == 0u) {
      [[unroll]] for (uint d = 0; d < DF; ++d) MAT_STORE(o[d], smem, d * 4u, OROW4, false);
    }
    barrier();

#if ABLATE_HANDOVER
    if (sg == 0u && lane == 0u) o4[w] = floatBitsToUint(vec4(l_all));  // keeps the merge
    continue;
#endif
    if (sg == 0u && half_row == 0u) store_split_state(w, split, row, m_all, l_all);
    for (uint e = lid; e < tile_rows * (HD / 4); e += WG) {
      const uint r = e / (HD / 4), c4 = e % (HD / 4);
      store_split_part(w, split, r, c4, uintBitsToFloat(smem[r * OROW4 + c4]));
    }
    if (!last_split_arrived(w)) continue;
    merge_splits(w, t0, tile_rows, group, kvh);
    barrier();  // smem and q_rows are the next tile's
  }
}
