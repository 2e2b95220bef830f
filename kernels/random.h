// The portable random numbers of make_random (kernels/families/reference.h): the same inputs
// for the same (problem, seed) on every platform, unlike the std distributions.
#pragma once

#include <cstdint>

namespace vktune::kernels {

// splitmix64.
struct Rng {
  uint64_t state;
  uint64_t next() {
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  double unit() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }  // [0, 1)
  float uniform(float lo, float hi) { return lo + static_cast<float>(unit()) * (hi - lo); }
  float signed_nonzero() {  // [-1, 1] with |v| >= 1/1024
    float v = uniform(1.0f / 1024, 1.0f);
    return (next() & 1) ? v : -v;
  }
};

}  // namespace vktune::kernels
