// Sharding a tuning run across hosts: `vktune tune --shard I/N` takes a deterministic,
// cost-balanced share of the problem list, so N processes on N machines (a Slurm job array, a
// Kubernetes Indexed Job) tune disjoint shares into databases of their own that `vktune merge`
// joins. No coordination: every shard computes the same split from the same list and costs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace vktune::tuner {

struct Shard {
  uint32_t index = 1;  // 1-based, as written: 1/2 and 2/2
  uint32_t count = 1;

  friend bool operator==(const Shard&, const Shard&) = default;
};

// Reads an environment variable (nullptr when unset); std::getenv by default, a map in tests.
using EnvLookup = std::function<const char*(const char*)>;

// "I/N" with 1 <= I <= N; "auto": a Slurm job array's task (SLURM_ARRAY_TASK_ID counted from
// SLURM_ARRAY_TASK_MIN, of SLURM_ARRAY_TASK_COUNT); "auto/N": a Kubernetes Indexed Job's
// (JOB_COMPLETION_INDEX, 0-based, of N given here: the job's completions). Throws
// std::invalid_argument naming the value or the variable and what it needs.
Shard parse_shard(std::string_view text, const EnvLookup& env = std::getenv);

// "2/4".
std::string to_string(const Shard& shard);

// The indices (ascending) of the problems `shard` takes, given each problem's predicted cost:
// the costliest first, each to the shard whose total is lowest so far (ties: the lower shard),
// problems of equal cost in list order (longest-processing-time-first). Every index lands in
// exactly one of the N shards, and the same costs give the same split on every host.
std::vector<size_t> shard_indices(std::span<const double> costs, const Shard& shard);

}  // namespace vktune::tuner
