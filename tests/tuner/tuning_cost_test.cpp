// The predicted cost of tuning a problem: linear in its variants, and dealing two shards by it
// splits the H200's measured times of an exhaustive llama3-8b run evenly, where dealing by
// variant counts did not.
#include "tuner/tuning_cost.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "tuner/shard.h"

namespace vktune::tuner {
namespace {

kernels::Problem linear(uint32_t m, uint32_t n, uint32_t k) {
  return {kernels::Op("q4gsw"), m, n, k, 32, false};
}

TEST(TuningCost, GrowsWithVariantsAndWithTheDispatch) {
  const kernels::Problem gemv = linear(1, 4096, 4096);
  EXPECT_DOUBLE_EQ(tuning_cost(gemv, 200), 2 * tuning_cost(gemv, 100));
  EXPECT_EQ(tuning_cost(gemv, 0), 0.0);
  // lm_head at M 128 is bound by its FLOPs, at M 1 by its bytes; both far above a small GEMV.
  EXPECT_GT(nominal_dispatch_us(linear(128, 128256, 4096)),
            5 * nominal_dispatch_us(linear(1, 128256, 4096)));
  EXPECT_GT(tuning_cost(linear(128, 128256, 4096), 1), 10 * tuning_cost(gemv, 1));
}

// The H200 (2026-11-29, `tune --shapes llama3-8b --ops q4gsw --m 1,128 --gs 32 --strategy
// exhaustive`, one GPU): each problem's legal variants and seconds of measuring.
struct Measured {
  kernels::Problem problem;
  size_t variants;
  double seconds;
};
const std::vector<Measured> kLlama3 = {
    {linear(128, 128256, 4096), 870, 76},  {linear(1, 128256, 4096), 2264, 39},
    {linear(128, 14336, 4096), 1922, 17},  {linear(128, 4096, 14336), 1922, 18},
    {linear(1, 14336, 4096), 3358, 15},    {linear(1, 4096, 14336), 3478, 21},
    {linear(128, 4096, 4096), 1922, 12},   {linear(1, 4096, 4096), 3358, 14},
    {linear(128, 1024, 4096), 1922, 8.44}, {linear(1, 1024, 4096), 3358, 13},
};

// The larger of two shards' measured seconds, as a share of the whole run's.
double larger_share(const std::vector<double>& costs) {
  double total = 0, first = 0;
  for (const Measured& m : kLlama3) total += m.seconds;
  for (size_t i : shard_indices(costs, {1, 2})) first += kLlama3[i].seconds;
  return std::max(first, total - first) / total;
}

TEST(TuningCost, DealsTwoShardsEvenTimes) {
  std::vector<double> by_cost, by_variants;
  for (const Measured& m : kLlama3) {
    by_cost.push_back(tuning_cost(m.problem, m.variants));
    by_variants.push_back(static_cast<double>(m.variants));
  }
  EXPECT_LT(larger_share(by_cost), 0.53);
  EXPECT_GT(larger_share(by_variants), 0.6);  // what the deal by variant counts did
}

}  // namespace
}  // namespace vktune::tuner
