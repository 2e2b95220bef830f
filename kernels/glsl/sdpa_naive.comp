// sdpa baseline, the seeds' three passes: scores, softmax, weighted sum. One workgroup per
// (token, head) row (grid-stride past maxComputeWorkGroupCount); the passes are phases of that
// workgroup with the scores stored in the workspace [M, heads, L] between them, so it moves
// the bytes three separate dispatches would, in one dispatch.
#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require

layout(constant_id = 0) const uint WG = 64;  // the workgroup size, specialised
#define VEC 1
#define QPG 1

layout(local_size_x_id = 0) in;

#include "sdpa_common.glsl"

layout(std430, binding = 4) buffer Scores { float scores[]; };

void main() {
  const uint lid = gl_LocalInvocationID.x;
  const uint D = pc.head_dim;
  for (uint row = gl_WorkGroupID.x; row < pc.tokens * pc.heads; row += gl_NumWorkGroups.x) {
    const uint t = row / pc.heads, h = row % pc.heads;
    const uint n = attended(t);
    const uint s0 = row * pc.cache_len;
    // Pass 1: scores.
    float local_max = kNoScore;
    for (uint j = lid; j < n; j += WG) {
      float s = 0.0;
      for (uint i = 0; i < D; ++i) s += float(q[row * D + i]) * float(kc[cache_index(j, h, i)]);
      s *= pc.scale;
      scores[s0 + j] = s;
      local_max = max(local_max, s);
    }
    float m[1] = {local_max};
    workgroup_max(m);
    // Pass 2: the softmax's numerators and their sum (each invocation rereads its own scores).
    float local_sum = 0.0;
    for (uint j = lid; j < n; j += WG) {
      const float p = exp(scores[s0 + j] - m[0]);
      scores[s0 + j] = p;
      local_sum += p;
    }
    memoryBarrierBuffer();  // pass 3 reads every invocation's numerators
    float sum[1] = {local_sum};
    workgroup_sum(sum);
    // Pass 3: the weighted sum of V, one head-dim element per invocation.
    for (uint i = lid; i < D; i += WG) {
      float acc = 0.0;
      for (uint j = 0; j < n; ++j) acc += scores[s0 + j] * float(vc[cache_index(j, h, i)]);
      o[row * D + i] = STYPE(acc / sum[0]);
    }
  }
}
