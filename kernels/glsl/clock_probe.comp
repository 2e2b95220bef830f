// A fixed ALU-bound dispatch for reading the SM clock through its duration (tuner/clock_probe.h):
// one workgroup, each invocation a dependent chain of ITER fused multiply-adds, so the time is
// ITER x the FMA latency in cycles, divided by the clock; memory plays no part.
#version 450

#ifndef ITER
#define ITER 16384  // ~33 us at 1980 MHz: launch jitter stays well under 1%
#endif

layout(local_size_x = 64) in;
layout(push_constant) uniform Push { float a; } pc;  // 1.0: keeps the chain from folding
layout(std430, binding = 0) writeonly buffer Out { float out_[]; };

void main() {
  float v = float(gl_LocalInvocationID.x);
  for (uint i = 0; i < ITER; ++i) v = fma(v, pc.a, 0.5);
  out_[gl_LocalInvocationID.x] = v;
}
