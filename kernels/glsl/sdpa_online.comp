// sdpa in one pass over the cache with an online softmax (running max m, sum l and accumulator
// acc, rescaled by exp(m_old - m_new) as the max grows). One workgroup per (token, head) row,
// or, with SLICES > 1 (split context, for decode), per (row, slice of the attended positions):
// each slice leaves its (m, l, acc) in the workspace and bumps the row's counter; the slice
// that arrives last merges the row's states and writes out, then zeroes the counter for the
// next dispatch. No workgroup waits for another, so it stays one dispatch.
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
// The largest head dim (sdpa_online.cpp's kMaxHeadDim): q is staged in shared memory and each
// invocation keeps DMAX / VEC / WG accumulator vectors.
#define DMAX 256
#define DV (DMAX / VEC)
#define ACC ((DV + WG - 1) / WG)
#define STEP (WG * KEYS)

layout(local_size_x = WG) in;

#include "sdpa_common.glsl"

shared VTYPE qs[DV];
shared float ps[STEP];

#if SLICES > 1
// Workspace, in 4-byte words: a counter per row (rounded up to 4), then (m, l) per (row, slice)
// (rounded up to 4), then acc [rows, SLICES, D]. Coherent: the last slice reads the others'.
layout(std430, binding = 4) coherent buffer WsCount { uint counter[]; };
layout(std430, binding = 4) coherent buffer WsMl { float ml[]; };
layout(std430, binding = 4) coherent buffer WsAcc { VTYPE part[]; };
shared uint last_slice;
#endif

void main() {
  const uint lid = gl_LocalInvocationID.x;
  const uint hd = pc.head_dim / VEC;
  const uint rows = pc.tokens * pc.heads;
  for (uint id = gl_WorkGroupID.x; id < rows * SLICES; id += gl_NumWorkGroups.x) {
    const uint row = id / SLICES, slice = id % SLICES;
    const uint t = row / pc.heads, h = row % pc.heads;
    const uint n = attended(t);
    const uint per = (n + SLICES - 1u) / SLICES;
    const uint begin = min(n, slice * per), end = min(n, begin + per);

    for (uint i = lid; i < hd; i += WG) qs[i] = q[row * hd + i] * pc.scale;
    barrier();

    float m = kNoScore, l = 0.0;
    VTYPE acc[ACC];
    [[unroll]] for (uint a = 0; a < ACC; ++a) acc[a] = VTYPE(0.0);
    for (uint j0 = begin; j0 < end; j0 += STEP) {
      float s[KEYS];
      float local_max = kNoScore;
      [[unroll]] for (uint c = 0; c < KEYS; ++c) {
        const uint j = j0 + c * WG + lid;
        s[c] = kNoScore;
        if (j < end) {
          float dot_qk = 0.0;
          for (uint i = 0; i < hd; ++i) dot_qk += dot(qs[i], kc[cache_index(j, h, i)]);
          s[c] = dot_qk;
        }
        local_max = max(local_max, s[c]);
      }
      // The step has at least one position (j0 itself), so m_new is a real score.
      const float m_new = max(m, workgroup_max(local_max));
      float local_sum = 0.0;
      [[unroll]] for (uint c = 0; c < KEYS; ++c) {
        const float p = j0 + c * WG + lid < end ? exp(s[c] - m_new) : 0.0;
        ps[c * WG + lid] = p;
        local_sum += p;
      }
      const float alpha = exp(m - m_new);  // 0 on the first step
      l = l * alpha + workgroup_sum(local_sum);  // its barriers publish ps
      m = m_new;
      const uint count = min(uint(STEP), end - j0);
      [[unroll]] for (uint a = 0; a < ACC; ++a) {
        const uint i = lid + a * WG;
        if (i < hd) {
          VTYPE v = acc[a] * alpha;
          for (uint jj = 0; jj < count; ++jj) v += ps[jj] * vc[cache_index(j0 + jj, h, i)];
          acc[a] = v;
        }
      }
      barrier();  // ps is rewritten by the next step
    }

#if SLICES == 1
    [[unroll]] for (uint a = 0; a < ACC; ++a) {
      const uint i = lid + a * WG;
      if (i < hd) o[row * hd + i] = acc[a] / l;
    }
#else
    // Hand this slice's state over; the last slice of the row to arrive finishes it. An empty
    // slice (fewer positions than slices) hands over m = kNoScore, l = 0, acc = 0: weight 0.
    const uint state = row * SLICES + slice;
    const uint ml0 = (rows + 3u) & ~3u;
    const uint acc0 = (ml0 + 2u * rows * SLICES + 3u) & ~3u;
    [[unroll]] for (uint a = 0; a < ACC; ++a) {
      const uint i = lid + a * WG;
      if (i < hd) part[acc0 / VEC + state * hd + i] = acc[a];
    }
    if (lid == 0u) {
      ml[ml0 + 2u * state] = m;
      ml[ml0 + 2u * state + 1u] = l;
    }
    memoryBarrierBuffer();  // the state is visible before the counter says it is there
    barrier();
    if (lid == 0u) last_slice = atomicAdd(counter[row], 1u);
    barrier();
    if (last_slice != SLICES - 1u) continue;  // uniform: read from shared after a barrier
    memoryBarrierBuffer();  // and the others' states are read after their counts
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
      o[row * hd + i] = sum / l_all;
    }
    if (lid == 0u) counter[row] = 0u;  // ready for the next dispatch
    barrier();  // qs and last_slice are rewritten by this workgroup's next row
#endif
  }
}
