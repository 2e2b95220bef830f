// `vktune bench`: re-times, in one fresh run, each tuned winner of a database beside the
// baselines it is quoted against (the best naive variant and today's fixed routing), and
// summarizes them with the report's numbers.
#pragma once

#include <string>
#include <vector>

#include "db/store.h"
#include "kernels/problem.h"
#include "kernels/vk/device_info.h"

namespace vktune::cli {

struct BenchPlan {
  std::vector<kernels::Problem> problems;
  // Per problem (same order): the variant keys to measure.
  std::vector<std::vector<std::string>> keys;
};

// The problems `tuned` holds a winner for on `device` (matched by fingerprint; else the only
// device of the same vendor and device id), each with its winner, its best naive variant and
// the built-in routing's variant. Throws std::invalid_argument when the database has no
// results for the device.
BenchPlan plan_bench(const db::Store& tuned, const vk::DeviceInfo& device);

// Drops the problems of `plan` that are not in `wanted`. Throws std::invalid_argument when
// none is left.
void keep_only(BenchPlan& plan, const std::vector<kernels::Problem>& wanted);

}  // namespace vktune::cli
