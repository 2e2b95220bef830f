// sdpa for decode (a few query tokens), built to stream the KV cache at the memory roof. One
// workgroup per (KV head, block of ROWS query rows, split of the cache): a query row is a
// (token, query head of that KV head's group) pair, so every head of the group and every token
// is served from one read of each K and V row (GQA). LANES invocations span a cache row with
// 16-byte loads (8 halves, or 4 floats) and sum its dot products with subgroup shuffles; each
// such lane group keeps an online softmax (running max m, sum l, accumulator acc) per query row
// over the positions it takes, KEYS at a time (their loads all issued before any is used).
// HALVING=1 sums a step's KEYS x ROWS dot products by halving (each shuffle carries half of what
// the lane still holds, so the group spends about KEYS x ROWS shuffles instead of that many times
// log2 LANES); the lanes then take the softmax of the sums they hold, a row's online state kept
// by the lanes holding its sums, and hand the weights to the group by shuffles.
// The lane groups' states are merged in shared memory, each split leaves its (m, l, acc) in the
// workspace and bumps its block's counter, and the split that arrives last merges the splits
// and writes out, then zeroes the counter: one dispatch, no workgroup waits for another.
// Softmax in base 2 (q is pre-scaled by log2 e), all arithmetic fp32 and fp16 only in memory,
// except with HALF_MATH (sdpa_decode_half): there the dot products' and the weighted sum's
// multiplies and adds run on packed fp16 pairs (twice the products an instruction, no
// conversion of K and V), each chunk's or step's partial sum taken on in fp32.
#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_KHR_shader_subgroup_shuffle : require
#extension GL_KHR_shader_subgroup_basic : require

#ifndef WG
#define WG 128
#endif
#ifndef LANES
#define LANES 16  // invocations per cache row: a power of two, at most the subgroup size
#endif
#ifndef CHUNKS
#define CHUNKS 1  // 16-byte chunks of a row per lane: rows up to LANES * CHUNKS * 16 bytes
#endif
#ifndef KEYS
#define KEYS 2  // cache rows a lane group loads per step
#endif
#ifndef AHEAD
#define AHEAD 1  // steps whose loads are in flight while a step is computed
#endif
#ifndef ROWS
#define ROWS 4  // query rows per workgroup
#endif
#ifndef SPLITS
#define SPLITS 16  // slices of the cache per (KV head, row block)
#endif
#ifndef HALVING
#define HALVING 0  // 1: a step's dot products summed by halving, the softmax taken where they end
#endif
#ifndef HALF_MATH
#define HALF_MATH 0  // 1: a step's products in packed fp16 (sdpa_decode_half; F16 only)
#endif
// Timing ablations, set by tools/decode_ablation.cpp only (no variant sets them; the output is
// then wrong): what the time is without the splits' hand-over (ABLATE_HANDOVER 1: the last
// split merges nothing), without any arithmetic on the cache (ABLATE_ARITHMETIC 1: a step
// only loads its K and V rows) and without reading the cache (ABLATE_LOADS 1: a step's K and V
// are made from their addresses, everything else as the variant).
#ifndef ABLATE_HANDOVER
#define ABLATE_HANDOVER 0
#endif
#ifndef ABLATE_ARITHMETIC
#define ABLATE_ARITHMETIC 0
#endif
#ifndef ABLATE_LOADS
#define ABLATE_LOADS 0
#endif
#if HALF_MATH
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#endif

#define GROUPS (WG / LANES)  // lane groups per workgroup, each on its own cache rows

layout(local_size_x = WG) in;

#include "sdpa_push.glsl"
#include "float_type.glsl"

// vec4s per 16-byte chunk, and the longest head dim a variant holds (sdpa_decode.cpp's).
#if F16
#define PER 2
#else
#define PER 1
#endif
#if HALF_MATH && !F16
#error HALF_MATH computes on the halves of an fp16 cache
#endif
#define DCAP (LANES * CHUNKS * PER * 4)

// Bindings as sdpa_common.glsl's; the caches read 16 bytes at a time whatever the dtype.
layout(std430, binding = 0) readonly buffer QBuf { FLOAT_T q[]; };
layout(std430, binding = 1) readonly buffer KBuf { uvec4 kc[]; };
layout(std430, binding = 2) readonly buffer VBuf { uvec4 vc[]; };
layout(std430, binding = 3) writeonly buffer OBuf { FLOAT_T o[]; };
// Workspace, in 4-byte words: a counter per row block (rounded up to 4), (m, l) per (query row,
// split) (rounded up to 4), then acc [query rows, SPLITS, D]; fp32 whatever the dtype. Coherent:
// the last split reads the others'.
layout(std430, binding = 4) coherent buffer WsCount { uint counter[]; };
layout(std430, binding = 4) coherent buffer WsMl { float ml[]; };
layout(std430, binding = 4) coherent buffer WsAcc { vec4 part[]; };

// A score below any real one (finite, so that exp2(a - b) of two of them is never NaN).
const float kNoScore = -1.0e30;

// Per lane group and row: (m, l), then its weight in the workgroup's merge; acc chunks.
shared float group_m[GROUPS * ROWS], group_l[GROUPS * ROWS];
shared vec4 group_acc[GROUPS * ROWS * (DCAP / 4)];
shared uint last_split;

#define SUMS (KEYS * ROWS)  // dot products a lane group sums per step
#if HALVING
// After halving a lane holds HELD of a step's sums, row-major ([row][key]) from index
// lane * SUMS / LANES; with fewer sums than lanes, LPS neighbouring lanes hold each. A row's KEYS
// sums lie in one lane (which holds OWN whole rows) or over RL neighbouring lanes.
#define HELD (SUMS > LANES ? SUMS / LANES : 1)
#define LPS (LANES > SUMS ? LANES / SUMS : 1)
#define VPR (HELD < KEYS ? HELD : KEYS)  // sums of one row a lane holds
#define OWN (HELD / VPR)                 // rows a lane holds sums of
#define RL (KEYS * LPS / VPR)            // lanes over which a row's sums lie
// With half math the weights are rounded to fp16 anyway: where each lane holds one sum and a
// row's keys come in pairs, two weights travel in one shuffle.
#define PACKED_WEIGHTS (HALF_MATH && SUMS == LANES && KEYS % 2 == 0)
#else
#define PACKED_WEIGHTS 0
#endif
#if PACKED_WEIGHTS
#define WEIGHT_T f16vec2  // the weights of keys 2i and 2i + 1 of a row
#define WEIGHTS (KEYS / 2)
#else
#define WEIGHT_T float
#define WEIGHTS KEYS
#endif
#if HALF_MATH
#define Q_T f16vec4
#else
#define Q_T vec4
#endif
#if HALVING
// Sums `v` (this lane's part of each of a step's dot products) over the lane group, leaving the
// lane its HELD sums in v[0, HELD). At each shuffle distance the lane keeps one half of what it
// holds, adds its partner's part of that half and sends the other; once one value is left, whole
// butterflies.
void halve(inout float v[SUMS], uint lane) {
  [[unroll]] for (uint x = LANES / 2u; x >= 1u; x >>= 1u) {
    // The lane holds SUMS * 2x / LANES values before this shuffle distance (a constant once
    // unrolled, as every index below).
    const uint half_count = SUMS * x / LANES;
    if (half_count >= 1u) {
      const bool upper = (lane & x) != 0u;
      [[unroll]] for (uint i = 0; i < half_count; ++i) {
        const float keep = upper ? v[i + half_count] : v[i];
        const float send = upper ? v[i] : v[i + half_count];
        v[i] = keep + subgroupShuffleXor(send, x);
      }
    } else {
      v[0] += subgroupShuffleXor(v[0], x);
    }
  }
}
#endif

void unpack(uvec4 u, out vec4 v[PER]) {
#if F16
  v[0] = vec4(unpackHalf2x16(u.x), unpackHalf2x16(u.y));
  v[1] = vec4(unpackHalf2x16(u.z), unpackHalf2x16(u.w));
#else
  v[0] = uintBitsToFloat(u);
#endif
}

// This lane's part of the step's dot products: s[key][r] = q_r . k_key over the lane's chunks.
// Half math takes each chunk's eight products in fp16 pairs and their sum to fp32.
void score(const Q_T qv[ROWS][CHUNKS][PER], const uvec4 kr[KEYS][CHUNKS],
           out float s[KEYS][ROWS]) {
  [[unroll]] for (uint key = 0; key < KEYS; ++key) {
    [[unroll]] for (uint r = 0; r < ROWS; ++r) s[key][r] = 0.0;
    [[unroll]] for (uint c = 0; c < CHUNKS; ++c) {
#if HALF_MATH
      const uvec4 u = kr[key][c];
      const f16vec2 k[4] = f16vec2[4](unpackFloat2x16(u.x), unpackFloat2x16(u.y),
                                      unpackFloat2x16(u.z), unpackFloat2x16(u.w));
      [[unroll]] for (uint r = 0; r < ROWS; ++r) {
        f16vec2 t = qv[r][c][0].xy * k[0];
        t = fma(qv[r][c][0].zw, k[1], t);
        t = fma(qv[r][c][1].xy, k[2], t);
        t = fma(qv[r][c][1].zw, k[3], t);
        s[key][r] += float(t.x + t.y);
      }
#else
      vec4 k[PER];
      unpack(kr[key][c], k);
      [[unroll]] for (uint r = 0; r < ROWS; ++r) {
        [[unroll]] for (uint p = 0; p < PER; ++p) s[key][r] += dot(qv[r][c][p], k[p]);
      }
#endif
    }
  }
}

// acc[r] += the step's V rows weighted by row r's weights. Half math sums a step's KEYS products
// of each pair of values in fp16 and adds that to the fp32 accumulator.
void accumulate(const WEIGHT_T pk[WEIGHTS][ROWS], const uvec4 vr[KEYS][CHUNKS],
                inout vec4 acc[ROWS][CHUNKS][PER]) {
#if HALF_MATH
  [[unroll]] for (uint r = 0; r < ROWS; ++r) {
    [[unroll]] for (uint c = 0; c < CHUNKS; ++c) {
      f16vec2 w[4] = f16vec2[4](f16vec2(0.0hf), f16vec2(0.0hf), f16vec2(0.0hf), f16vec2(0.0hf));
      [[unroll]] for (uint key = 0; key < KEYS; ++key) {
#if PACKED_WEIGHTS
        const f16vec2 weight = f16vec2(pk[key / 2u][r][key % 2u]);
#else
        const f16vec2 weight = f16vec2(float16_t(pk[key][r]));
#endif
        const uvec4 u = vr[key][c];
        w[0] = fma(weight, unpackFloat2x16(u.x), w[0]);
        w[1] = fma(weight, unpackFloat2x16(u.y), w[1]);
        w[2] = fma(weight, unpackFloat2x16(u.z), w[2]);
        w[3] = fma(weight, unpackFloat2x16(u.w), w[3]);
      }
      acc[r][c][0] += vec4(vec2(w[0]), vec2(w[1]));
      acc[r][c][1] += vec4(vec2(w[2]), vec2(w[3]));
    }
  }
#else
  [[unroll]] for (uint key = 0; key < KEYS; ++key) {
    [[unroll]] for (uint c = 0; c < CHUNKS; ++c) {
      vec4 v[PER];
      unpack(vr[key][c], v);
      [[unroll]] for (uint r = 0; r < ROWS; ++r) {
        [[unroll]] for (uint p = 0; p < PER; ++p) acc[r][c][p] += pk[key][r] * v[p];
      }
    }
  }
#endif
}

// The K and V chunks of the step at `j0` that this lane loads; zeros past `end` (read nothing).
void load_step(uint j0, uint end, uint kvh, uint lane, uint grp, uint chunks,
               out uvec4 k[KEYS][CHUNKS], out uvec4 v[KEYS][CHUNKS]) {
  [[unroll]] for (uint key = 0; key < KEYS; ++key) {
    const uint j = j0 + key * GROUPS + grp;
    [[unroll]] for (uint c = 0; c < CHUNKS; ++c) {
      const uint ch = lane + c * LANES;
      k[key][c] = uvec4(0u);
      v[key][c] = uvec4(0u);
      if (j < end && ch < chunks) {
        const uint at = (j * pc.kv_heads + kvh) * chunks + ch;
#if ABLATE_LOADS
        // Finite halves below 1 that the compiler cannot fold (a multiply and masks a chunk).
        const uint h = at * 2654435761u;
        k[key][c] = uvec4(h, h ^ 0x5555u, h + 7u, h * 3u) & 0x3bff3bffu;
        v[key][c] = uvec4(h + 1u, h ^ 0x3333u, h + 9u, h * 5u) & 0x3bff3bffu;
#else
        k[key][c] = kc[at];
        v[key][c] = vc[at];
#endif
      }
    }
  }
}

#if HALVING
// The step's weights from the HELD sums halving left this lane (v, row-major from own0): the
// lanes holding a row's sums take its max and sum by shuffles and keep its (m, l); every lane
// rescales its accumulators by each row's factor and gets each weight from the lane holding it.
void weigh_held(inout float v[SUMS], uint j0, uint end, uint grp, uint own0, uint n_own[OWN],
                inout float m_own[OWN], inout float l_own[OWN], inout vec4 acc[ROWS][CHUNKS][PER],
                out WEIGHT_T pk[WEIGHTS][ROWS]) {
  float alpha[OWN];
  [[unroll]] for (uint o = 0; o < OWN; ++o) {
    float step_max = kNoScore;
    [[unroll]] for (uint i = o * VPR; i < (o + 1u) * VPR; ++i) {
      const uint j = j0 + ((own0 + i) % KEYS) * GROUPS + grp;
      if (j >= end || j >= n_own[o]) v[i] = kNoScore;
      step_max = max(step_max, v[i]);
    }
    [[unroll]] for (uint x = LPS; x < RL; x <<= 1u) {
      step_max = max(step_max, subgroupShuffleXor(step_max, x));
    }
    const float m_new = max(m_own[o], step_max);
    alpha[o] = exp2(m_own[o] - m_new);  // 0 once a real score arrives after none
    m_own[o] = m_new;
    float sum = 0.0;
    [[unroll]] for (uint i = o * VPR; i < (o + 1u) * VPR; ++i) {
      v[i] = v[i] == kNoScore ? 0.0 : exp2(v[i] - m_new);
      sum += v[i];
    }
    [[unroll]] for (uint x = LPS; x < RL; x <<= 1u) sum += subgroupShuffleXor(sum, x);
    l_own[o] = l_own[o] * alpha[o] + sum;
  }
  // Sum `i` sits in slot i % HELD of lane i * LPS / HELD of the group.
  const uint group_lane0 = gl_SubgroupInvocationID & ~(LANES - 1u);
#if PACKED_WEIGHTS
  const float other = subgroupShuffleXor(v[0], 1u);
  const bool even = (gl_SubgroupInvocationID & 1u) == 0u;
  const uint packed = packFloat2x16(f16vec2(even ? vec2(v[0], other) : vec2(other, v[0])));
#endif
  [[unroll]] for (uint r = 0; r < ROWS; ++r) {
    const uint first = r * KEYS;
    const float a = subgroupShuffle(alpha[first % HELD / VPR], group_lane0 + first * LPS / HELD);
    [[unroll]] for (uint c = 0; c < CHUNKS; ++c) {
      [[unroll]] for (uint p = 0; p < PER; ++p) acc[r][c][p] *= a;
    }
#if PACKED_WEIGHTS
    [[unroll]] for (uint key = 0; key < KEYS; key += 2u) {
      pk[key / 2u][r] = unpackFloat2x16(subgroupShuffle(packed, group_lane0 + first + key));
    }
#else
    [[unroll]] for (uint key = 0; key < KEYS; ++key) {
      const uint i = first + key;
      pk[key][r] = subgroupShuffle(v[i % HELD], group_lane0 + i * LPS / HELD);
    }
#endif
  }
}
#else
// The step's weights from sums every lane holds (s), each lane keeping every row's (m, l).
void weigh_rows(inout float s[KEYS][ROWS], uint j0, uint end, uint grp, uint n[ROWS],
                inout float m[ROWS], inout float l[ROWS], inout vec4 acc[ROWS][CHUNKS][PER],
                out float pk[KEYS][ROWS]) {
  [[unroll]] for (uint r = 0; r < ROWS; ++r) {
    float step_max = kNoScore;
    [[unroll]] for (uint key = 0; key < KEYS; ++key) {
      const uint j = j0 + key * GROUPS + grp;
      if (j >= end || j >= n[r]) s[key][r] = kNoScore;
      step_max = max(step_max, s[key][r]);
    }
    const float m_new = max(m[r], step_max);
    const float alpha = exp2(m[r] - m_new);  // 0 once a real score arrives after none
    m[r] = m_new;
    l[r] *= alpha;
    [[unroll]] for (uint c = 0; c < CHUNKS; ++c) {
      [[unroll]] for (uint p = 0; p < PER; ++p) acc[r][c][p] *= alpha;
    }
    [[unroll]] for (uint key = 0; key < KEYS; ++key) {
      pk[key][r] = s[key][r] == kNoScore ? 0.0 : exp2(s[key][r] - m_new);
      l[r] += pk[key][r];
    }
  }
}
#endif

void main() {
  const uint lid = gl_LocalInvocationID.x;
  const uint lane = lid % LANES, grp = lid / LANES;
  const uint group = pc.heads / pc.kv_heads;  // query heads per KV head
  const uint rows = pc.tokens * group;        // query rows per KV head
  const uint blocks = (rows + ROWS - 1u) / ROWS;
  const uint chunks = pc.head_dim / (PER * 4u);  // 16-byte chunks per cache row
  const uint d4 = pc.head_dim / 4u;
  const uint ml0 = (pc.kv_heads * blocks + 3u) & ~3u;
  const uint acc0 = (ml0 + 2u * pc.kv_heads * blocks * ROWS * SPLITS + 3u) & ~3u;
  const float qscale = pc.scale * 1.4426950408889634;  // log2 e: the softmax in base 2

  for (uint id = gl_WorkGroupID.x; id < pc.kv_heads * blocks * SPLITS; id += gl_NumWorkGroups.x) {
    const uint block = id / SPLITS, split = id % SPLITS;
    const uint kvh = block / blocks, row0 = (block % blocks) * ROWS;
    const uint per = (pc.cache_len + SPLITS - 1u) / SPLITS;
    const uint begin = min(pc.cache_len, split * per), end = min(pc.cache_len, begin + per);

    // The first steps' K and V rows, asked for before q: the loads' waits overlap.
    uvec4 kn[AHEAD][KEYS][CHUNKS], vn[AHEAD][KEYS][CHUNKS];
    [[unroll]] for (uint a = 0; a < AHEAD; ++a) {
      load_step(begin + a * GROUPS * KEYS, end, kvh, lane, grp, chunks, kn[a], vn[a]);
    }

    // Row r's positions attended (0 for a padding row past the last) and its q, pre-scaled.
    uint n[ROWS];
    Q_T qv[ROWS][CHUNKS][PER];
    [[unroll]] for (uint r = 0; r < ROWS; ++r) {
      const uint idx = row0 + r, t = idx / group;
      n[r] = idx < rows ? attended(t) : 0u;
      const uint qrow = (t * pc.heads + kvh * group + idx % group) * pc.head_dim;
      [[unroll]] for (uint c = 0; c < CHUNKS; ++c) {
        const uint ch = lane + c * LANES;
        [[unroll]] for (uint p = 0; p < PER; ++p) {
          vec4 v = vec4(0.0);
          if (idx < rows && ch < chunks) {
            const uint i = qrow + (ch * PER + p) * 4u;
            v = vec4(q[i], q[i + 1u], q[i + 2u], q[i + 3u]) * qscale;
          }
          qv[r][c][p] = Q_T(v);
        }
      }
    }

#if HALVING
    // The online state of the rows whose sums this lane holds after halving.
    const uint own0 = lane * SUMS / LANES;  // the first sum it holds
    uint n_own[OWN];
    float m_own[OWN], l_own[OWN];
    [[unroll]] for (uint o = 0; o < OWN; ++o) {
      const uint idx = row0 + own0 / KEYS + o;
      n_own[o] = idx < rows ? attended(idx / group) : 0u;
      m_own[o] = kNoScore;
      l_own[o] = 0.0;
    }
#else
    float m[ROWS], l[ROWS];
    [[unroll]] for (uint r = 0; r < ROWS; ++r) {
      m[r] = kNoScore;
      l[r] = 0.0;
    }
#endif
    vec4 acc[ROWS][CHUNKS][PER];
    [[unroll]] for (uint r = 0; r < ROWS; ++r) {
      [[unroll]] for (uint c = 0; c < CHUNKS; ++c) {
        [[unroll]] for (uint p = 0; p < PER; ++p) acc[r][c][p] = vec4(0.0);
      }
    }
    // The trip count is uniform over the workgroup: the shuffles below run in full subgroups.
    // Each step's K and V rows are loaded AHEAD steps ahead, so that they are in flight while the
    // steps before are scored and summed: a step waits on memory only where AHEAD steps of work
    // take less than a load's latency.
    for (uint j0 = begin; j0 < end; j0 += GROUPS * KEYS) {
      const uvec4 kr[KEYS][CHUNKS] = kn[0], vr[KEYS][CHUNKS] = vn[0];
      [[unroll]] for (uint a = 0; a + 1u < AHEAD; ++a) {
        kn[a] = kn[a + 1u];
        vn[a] = vn[a + 1u];
      }
      load_step(j0 + AHEAD * GROUPS * KEYS, end, kvh, lane, grp, chunks, kn[AHEAD - 1], vn[AHEAD - 1]);
#if ABLATE_ARITHMETIC
      [[unroll]] for (uint key = 0; key < KEYS; ++key) {
        [[unroll]] for (uint c = 0; c < CHUNKS; ++c) {
          acc[0][c][0] += uintBitsToFloat(kr[key][c] ^ vr[key][c]);  // keeps the loads
        }
      }
      continue;
#endif
      float s[KEYS][ROWS];
      score(qv, kr, s);
      // The softmax weights of the step's scores: a score is real where its position is in the
      // slice and attended.
      WEIGHT_T pk[WEIGHTS][ROWS];
#if HALVING
      {
        float v[SUMS];
        [[unroll]] for (uint r = 0; r < ROWS; ++r) {
          [[unroll]] for (uint key = 0; key < KEYS; ++key) v[r * KEYS + key] = s[key][r];
        }
        halve(v, lane);
        weigh_held(v, j0, end, grp, own0, n_own, m_own, l_own, acc, pk);
      }
#else
      // Butterfly over the lane group: every lane ends with the same sums, bit for bit.
      [[unroll]] for (uint x = 1u; x < LANES; x <<= 1u) {
        [[unroll]] for (uint key = 0; key < KEYS; ++key) {
          [[unroll]] for (uint r = 0; r < ROWS; ++r) s[key][r] += subgroupShuffleXor(s[key][r], x);
        }
      }
      weigh_rows(s, j0, end, grp, n, m, l, acc, pk);
#endif
      accumulate(pk, vr, acc);
    }

    // Merge the lane groups: weights exp2(m_g - m) per (group, row), then each output chunk.
#if HALVING
    if (lane % RL == 0u) {  // the first lane of each row's
      [[unroll]] for (uint o = 0; o < OWN; ++o) {
        group_m[grp * ROWS + own0 / KEYS + o] = m_own[o];
        group_l[grp * ROWS + own0 / KEYS + o] = l_own[o];
      }
    }
#endif
    [[unroll]] for (uint r = 0; r < ROWS; ++r) {
#if !HALVING
      if (lane == 0u) {
        group_m[grp * ROWS + r] = m[r];
        group_l[grp * ROWS + r] = l[r];
      }
#endif
      [[unroll]] for (uint c = 0; c < CHUNKS; ++c) {
        [[unroll]] for (uint p = 0; p < PER; ++p) {
          group_acc[(grp * ROWS + r) * (DCAP / 4) + (lane + c * LANES) * PER + p] = acc[r][c][p];
        }
      }
    }
    barrier();
    if (lid < ROWS) {
      float m_all = kNoScore;
      for (uint g = 0; g < GROUPS; ++g) m_all = max(m_all, group_m[g * ROWS + lid]);
      float l_all = 0.0;
      for (uint g = 0; g < GROUPS; ++g) {
        const float w = exp2(group_m[g * ROWS + lid] - m_all);
        group_m[g * ROWS + lid] = w;
        l_all += group_l[g * ROWS + lid] * w;
      }
      const uint state = ((block * ROWS + lid) * SPLITS + split) * 2u;
      ml[ml0 + state] = m_all;
      ml[ml0 + state + 1u] = l_all;
    }
    barrier();
    for (uint i = lid; i < ROWS * d4; i += WG) {
      const uint r = i / d4, e = i % d4;
      vec4 sum = vec4(0.0);
      for (uint g = 0; g < GROUPS; ++g) {
        sum += group_acc[(g * ROWS + r) * (DCAP / 4) + e] * group_m[g * ROWS + r];
      }
      part[acc0 / 4u + ((block * ROWS + r) * SPLITS + split) * d4 + e] = sum;
    }

#if ABLATE_HANDOVER
    barrier();
    continue;
#endif
    // Hand the split over; the last of the block's splits to arrive finishes its rows. An empty
    // split (fewer positions than splits) hands over m = kNoScore, l = 0, acc = 0: weight 0.
    memoryBarrierBuffer();  // the states are visible before the counter says they are there
    barrier();
    if (lid == 0u) last_split = atomicAdd(counter[block], 1u);
    barrier();
    if (last_split != SPLITS - 1u) continue;  // uniform: read from shared after a barrier
    memoryBarrierBuffer();  // and the others' states are read after their counts
    // An invocation per output vec4 merges the splits online, in split order whichever arrived
    // last (the result is fixed): its loads depend on nothing computed, and no barrier or shared
    // state stands between them and the output.
    for (uint i = lid; i < ROWS * d4; i += WG) {
      const uint r = i / d4, e = i % d4, idx = row0 + r;
      if (idx >= rows) continue;  // a padding row
      const uint state = ml0 + (block * ROWS + r) * SPLITS * 2u;
      const uint at = acc0 / 4u + (block * ROWS + r) * SPLITS * d4 + e;
      float m_all = kNoScore, l_all = 0.0;
      vec4 sum = vec4(0.0);
      [[unroll]] for (uint s = 0; s < SPLITS; ++s) {
        const float m_s = ml[state + 2u * s], l_s = ml[state + 2u * s + 1u];
        const vec4 part_s = part[at + s * d4];
        const float m_new = max(m_all, m_s);
        const float a = exp2(m_all - m_new), b = exp2(m_s - m_new);
        m_all = m_new;
        l_all = l_all * a + l_s * b;
        sum = sum * a + part_s * b;
      }
      sum /= l_all;  // > 0: a real row attends at least one position
      const uint dst = ((idx / group) * pc.heads + kvh * group + idx % group) * pc.head_dim + e * 4u;
      o[dst] = FLOAT_T(sum.x);
      o[dst + 1u] = FLOAT_T(sum.y);
      o[dst + 2u] = FLOAT_T(sum.z);
      o[dst + 3u] = FLOAT_T(sum.w);
    }
    if (lid == 0u) counter[block] = 0u;  // ready for the next dispatch
    barrier();  // the shared states are rewritten by this workgroup's next block
  }
}
