// sdpa in one pass over the cache with an online softmax (running max m, sum l and accumulator
// acc, rescaled by exp(m_old - m_new) as the max grows). One workgroup per (token, group of
// QPG consecutive query heads) -- QPG divides heads / kv_heads, so the group shares one KV head
// and each K and V element is read once for all of its heads (GQA) -- or, with SLICES > 1
// (split context, for decode), per (token, head group, slice of the attended positions): each
// slice leaves every head's (m, l, acc) in the workspace and bumps the group's counter; the
// slice that arrives last merges each (token, head) row's states and writes out, then zeroes
// the counter for the next dispatch. No workgroup waits for another, so it stays one dispatch.
#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require

#ifndef WG
#define WG 64
#endif
#ifndef KEYS
#define KEYS 1  // positions each invocation scores per step: a step covers WG * KEYS of them
#endif
#ifndef VEC
#define VEC 1
#endif
#ifndef SLICES
#define SLICES 1
#endif
#ifndef QPG
#define QPG 1  // query heads per workgroup
#endif
// The largest head dim (sdpa_online.cpp's kMaxHeadDim): q is staged in shared memory and each
// invocation keeps DMAX / VEC / WG accumulator vectors per head.
#define DMAX 256
#define DV (DMAX / VEC)
#define ACC ((DV + WG - 1) / WG)
#define STEP (WG * KEYS)

layout(local_size_x = WG) in;

#include "sdpa_common.glsl"

shared VTYPE qs[QPG * DV];    // head r's q (scaled) at r * DV
shared float ps[QPG * STEP];  // head r's step numerators at r * STEP

#if SLICES > 1
// Workspace, in 4-byte words: a counter per head group (rounded up to 4), then (m, l) per
// (row, slice) (rounded up to 4), then acc [rows, SLICES, D], all fp32 whatever the dtype (the
// partial states are sums still to be merged). Coherent: the last slice reads the others'.
layout(std430, binding = 4) coherent buffer WsCount { uint counter[]; };
layout(std430, binding = 4) coherent buffer WsMl { float ml[]; };
layout(std430, binding = 4) coherent buffer WsAcc { VTYPE part[]; };
shared uint last_slice;
#endif

void main() {
  const uint lid = gl_LocalInvocationID.x;
  const uint hd = pc.head_dim / VEC;
  const uint rows = pc.tokens * pc.heads;
  const uint groups = rows / QPG;
  for (uint id = gl_WorkGroupID.x; id < groups * SLICES; id += gl_NumWorkGroups.x) {
    // Rows (token, head) are token-major, so the group's heads are rows row0 .. row0 + QPG - 1.
    const uint grp = id / SLICES, slice = id % SLICES;
    const uint row0 = grp * QPG;
    const uint t = row0 / pc.heads, h0 = row0 % pc.heads;
    const uint n = attended(t);
    const uint per = (n + SLICES - 1u) / SLICES;
    const uint begin = min(n, slice * per), end = min(n, begin + per);

    [[unroll]] for (uint r = 0; r < QPG; ++r) {
      for (uint i = lid; i < hd; i += WG) qs[r * DV + i] = VTYPE(q[(row0 + r) * hd + i]) * pc.scale;
    }
    barrier();

    float m[QPG], l[QPG];
    VTYPE acc[QPG][ACC];
    [[unroll]] for (uint r = 0; r < QPG; ++r) {
      m[r] = kNoScore;
      l[r] = 0.0;
      [[unroll]] for (uint a = 0; a < ACC; ++a) acc[r][a] = VTYPE(0.0);
    }
    for (uint j0 = begin; j0 < end; j0 += STEP) {
      float s[KEYS][QPG];
      float step_max[QPG];
      [[unroll]] for (uint r = 0; r < QPG; ++r) step_max[r] = kNoScore;
      [[unroll]] for (uint c = 0; c < KEYS; ++c) {
        const uint j = j0 + c * WG + lid;
        [[unroll]] for (uint r = 0; r < QPG; ++r) s[c][r] = kNoScore;
        if (j < end) {
          float dot_qk[QPG];
          [[unroll]] for (uint r = 0; r < QPG; ++r) dot_qk[r] = 0.0;
          for (uint i = 0; i < hd; ++i) {
            const VTYPE k = VTYPE(kc[cache_index(j, h0, i)]);  // once for every head of the group
            [[unroll]] for (uint r = 0; r < QPG; ++r) dot_qk[r] += dot(qs[r * DV + i], k);
          }
          s[c] = dot_qk;
        }
        [[unroll]] for (uint r = 0; r < QPG; ++r) step_max[r] = max(step_max[r], s[c][r]);
      }
      // The step has at least one position (j0 itself), so every m_new is a real score.
      workgroup_max(step_max);
      float alpha[QPG], step_sum[QPG];
      [[unroll]] for (uint r = 0; r < QPG; ++r) {
        const float m_new = max(m[r], step_max[r]);
        alpha[r] = exp(m[r] - m_new);  // 0 on the first step
        m[r] = m_new;
        step_sum[r] = 0.0;
        [[unroll]] for (uint c = 0; c < KEYS; ++c) {
          const float p = j0 + c * WG + lid < end ? exp(s[c][r] - m_new) : 0.0;
          ps[r * STEP + c * WG + lid] = p;
          step_sum[r] += p;
        }
      }
      workgroup_sum(step_sum);  // its barriers publish ps
      [[unroll]] for (uint r = 0; r < QPG; ++r) l[r] = l[r] * alpha[r] + step_sum[r];
      const uint count = min(uint(STEP), end - j0);
      [[unroll]] for (uint a = 0; a < ACC; ++a) {
        const uint i = lid + a * WG;
        if (i < hd) {
          [[unroll]] for (uint r = 0; r < QPG; ++r) acc[r][a] *= alpha[r];
          for (uint jj = 0; jj < count; ++jj) {
            const VTYPE v = VTYPE(vc[cache_index(j0 + jj, h0, i)]);  // once for every head
            [[unroll]] for (uint r = 0; r < QPG; ++r) acc[r][a] += ps[r * STEP + jj] * v;
          }
        }
      }
      barrier();  // ps is rewritten by the next step
    }

#if SLICES == 1
    [[unroll]] for (uint r = 0; r < QPG; ++r) {
      [[unroll]] for (uint a = 0; a < ACC; ++a) {
        const uint i = lid + a * WG;
        if (i < hd) o[(row0 + r) * hd + i] = STYPE(acc[r][a] / l[r]);
      }
    }
#else
    // Hand this slice's states over; the last slice of the group to arrive finishes its rows.
    // An empty slice (fewer positions than slices) hands over m = kNoScore, l = 0, acc = 0:
    // weight 0.
    const uint ml0 = (groups + 3u) & ~3u;
    const uint acc0 = (ml0 + 2u * rows * SLICES + 3u) & ~3u;
    [[unroll]] for (uint r = 0; r < QPG; ++r) {
      const uint state = (row0 + r) * SLICES + slice;
      [[unroll]] for (uint a = 0; a < ACC; ++a) {
        const uint i = lid + a * WG;
        if (i < hd) part[acc0 / VEC + state * hd + i] = acc[r][a];
      }
      if (lid == 0u) {
        ml[ml0 + 2u * state] = m[r];
        ml[ml0 + 2u * state + 1u] = l[r];
      }
    }
    memoryBarrierBuffer();  // the states are visible before the counter says they are there
    barrier();
    if (lid == 0u) last_slice = atomicAdd(counter[grp], 1u);
    barrier();
    if (last_slice != SLICES - 1u) continue;  // uniform: read from shared after a barrier
    memoryBarrierBuffer();  // and the others' states are read after their counts
    for (uint row = row0; row < row0 + QPG; ++row) {
      float m_all = kNoScore;
      for (uint s = 0; s < SLICES; ++s) m_all = max(m_all, ml[ml0 + 2u * (row * SLICES + s)]);
      float l_all = 0.0;
      for (uint s = 0; s < SLICES; ++s) {
        const uint st = ml0 + 2u * (row * SLICES + s);
        l_all += ml[st + 1u] * exp(ml[st] - m_all);
      }
      for (uint i = lid; i < hd; i += WG) {
        VTYPE sum = VTYPE(0.0);
        for (uint s = 0; s < SLICES; ++s) {
          const float w = exp(ml[ml0 + 2u * (row * SLICES + s)] - m_all);
          sum += part[acc0 / VEC + (row * SLICES + s) * hd + i] * w;
        }
        o[row * hd + i] = STYPE(sum / l_all);
      }
    }
    if (lid == 0u) counter[grp] = 0u;  // ready for the next dispatch
    barrier();  // qs and last_slice are rewritten by this workgroup's next group
#endif
  }
}
