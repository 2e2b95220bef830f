// A synthetic database for benchmarks and scale tests: N problems x D devices, one or more
// measured variants each, written through db::Store exactly as the tuner would.
#pragma once

#include <cstdint>
#include <string>

#include "runtime/selection.h"

namespace vktune::runtime::bench {

struct SyntheticShape {
  uint32_t problems = 10000;
  uint32_t devices = 5;
  uint32_t kernels = 64;
  // Variants measured per (device, problem), at distinct times: more than one gives each
  // problem a ranked list, so untuned lookups take the ranking path.
  uint32_t measured_per_problem = 1;
};

// Writes the database to `path` (replacing nothing: the file must not exist). Problems are
// q4gsw f32 gs=32 with M in 1..256, N and K in 256..16384 (multiples of 32). Throws db::Error.
void write_synthetic_db(const std::string& path, const SyntheticShape& shape);

// The fingerprint of synthetic device `index`.
DeviceQuery synthetic_device(uint32_t index);

// The shape of synthetic problem `index` (same order as written).
ProblemQuery synthetic_problem(uint32_t index);

}  // namespace vktune::runtime::bench
