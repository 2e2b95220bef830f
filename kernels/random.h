// The portable random numbers of make_random (kernels/families/reference.h): the same inputs
// for the same (problem, seed) on every platform, unlike the std distributions.
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <thread>

#include "kernels/parallel.h"

namespace vktune::kernels {

// splitmix64: its i-th output depends on the seed and i alone, so a stream can be cut into
// pieces drawn on several cores (fill).
struct Rng {
  static constexpr uint64_t kGamma = 0x9E3779B97F4A7C15ull;
  uint64_t state;
  uint64_t next() {
    uint64_t z = (state += kGamma);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  // Moves on as `steps` calls of next() would.
  void skip(uint64_t steps) { state += steps * kGamma; }
  double unit() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }  // [0, 1)
  float uniform(float lo, float hi) { return lo + static_cast<float>(unit()) * (hi - lo); }
  float signed_nonzero() {  // [-1, 1] with |v| >= 1/1024
    float v = uniform(1.0f / 1024, 1.0f);
    return (next() & 1) ? v : -v;
  }
};

// `for (T& v : out) v = draw(rng);` for a `draw` that calls next() `steps` times a value, with the
// same values and `rng` left where that loop leaves it, on every core when `out` is large (an
// lm_head's 262 MB of weights take about a second on one).
template <typename T, typename Draw>
void fill(Rng& rng, std::span<T> out, uint64_t steps, const Draw& draw) {
  constexpr size_t kPerThread = size_t{1} << 22;
  const size_t threads = std::clamp<size_t>(out.size() / kPerThread, 1,
                                            std::max(1u, std::thread::hardware_concurrency()));
  auto piece = [&](size_t t) {
    const size_t begin = out.size() * t / threads, end = out.size() * (t + 1) / threads;
    Rng r = rng;
    r.skip(begin * steps);
    for (size_t i = begin; i < end; ++i) out[i] = draw(r);
  };
  parallel_for(threads, piece);
  rng.skip(out.size() * steps);
}

}  // namespace vktune::kernels
