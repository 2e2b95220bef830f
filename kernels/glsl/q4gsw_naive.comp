// q4gsw baseline: one workgroup per output row m, threads stride over N, scalar K loop over
// bytes (any even K and group size). The reference every speedup is quoted against.
#version 450
#extension GL_GOOGLE_include_directive : require

layout(constant_id = 0) const uint WG = 64;  // the workgroup size, specialised

layout(local_size_x_id = 0) in;

#include "q4gsw_common.glsl"

void main() {
  const uint half_k = pc.K >> 1;
  for (uint m = gl_WorkGroupID.x; m < pc.M; m += gl_NumWorkGroups.x) {
    for (uint n = gl_LocalInvocationID.x; n < pc.N; n += WG) {
      float acc = 0.0;
      for (uint k = 0; k < pc.K; k += 2) {
        const uint b = n * half_k + (k >> 1);
        const uint byte_ = (w[b >> 2] >> ((b & 3u) * 8u)) & 255u;
        const float s = float(scales[(k / pc.gs) * pc.N + n]);
        const float xa = float(x[m * pc.K + k]);
        const float xb = float(x[m * pc.K + k + 1]);
        acc += (xa * (float(byte_ & 15u) - 8.0) + xb * (float(byte_ >> 4) - 8.0)) * s;
      }
      if (pc.has_bias != 0u) acc += float(bias[n]);
      out_[m * pc.N + n] = FLOAT_T(acc);
    }
  }
}
