// `vktune bench`: re-times, in one fresh run, each tuned winner of a database beside the
// baselines it is quoted against (the best naive variant and today's fixed routing), and
// summarizes them with the report's numbers.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "db/store.h"
#include "kernels/problem.h"
#include "kernels/device_info.h"

namespace vktune::cli {

struct BenchPlan {
  std::vector<kernels::Problem> problems;
  // Per problem (same order): the variant keys to measure, the stored winner first.
  std::vector<std::vector<std::string>> keys;
  // Per problem: the stored winner's time, and the winners of its neighbours (the problems of
  // the same op and N x K at other M and group sizes), which the re-timing checks against it.
  std::vector<double> stored_ns;
  std::vector<std::vector<std::string>> neighbours;
};

// The problems `tuned` holds a winner for on `device` (matched by fingerprint; else the only
// device of the same vendor and device id), each with its winner, its best naive variant, the
// built-in routing's variant and its neighbours' winners. Throws std::invalid_argument when the
// database has no results for the device.
BenchPlan plan_bench(const db::Store& tuned, const vk::DeviceInfo& device);

// One problem of a bench: the stored winner re-timed, and the best re-timed neighbour winner.
struct BenchCheck {
  kernels::Problem problem;
  std::string winner;
  double stored_ns = 0;
  std::optional<double> retimed_ns;  // absent when the winner failed or was not measured
  std::string best_neighbour;        // the fastest re-timed neighbour winner, if any
  std::optional<double> neighbour_ns;
};

// Reads the bench's own measurements (`measured`, one run on one device) back against `plan`.
std::vector<BenchCheck> check_bench(const BenchPlan& plan, const db::Store& measured);

// The checks as a text table, then the number of problems whose re-timed winner is more than
// `retime_tolerance` off its stored time and whose neighbour winner beats it by more than
// `neighbour_margin`.
std::string render_checks(const std::vector<BenchCheck>& checks, double retime_tolerance = 0.03,
                          double neighbour_margin = 0.10);

// The checks for scripts: {"format": "vktune-bench", "checks": [{"problem", "winner",
// "stored_ns", "retimed_ns", "best_neighbour", "neighbour_ns"}]}, absent values null; one line.
std::string checks_json(const std::vector<BenchCheck>& checks);

// Drops the problems of `plan` that are not in `wanted`. Throws std::invalid_argument when
// none is left.
void keep_only(BenchPlan& plan, const std::vector<kernels::Problem>& wanted);

}  // namespace vktune::cli
