// --shard: what parses (and every refusal names the value or the variable), and the split:
// disjoint, covering, balanced by cost, the same on every call.
#include "tuner/shard.h"

#include <gtest/gtest.h>

#include <map>
#include <numeric>
#include <stdexcept>
#include <string>

namespace vktune::tuner {
namespace {

EnvLookup env_of(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](const char* name) -> const char* {
    const auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  };
}

std::string error_of(std::string_view text, const EnvLookup& env = env_of({})) {
  try {
    parse_shard(text, env);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

TEST(Shard, ParsesIOfN) {
  EXPECT_EQ(parse_shard("1/2"), (Shard{1, 2}));
  EXPECT_EQ(parse_shard("3/3"), (Shard{3, 3}));
  EXPECT_EQ(to_string(parse_shard("2/7")), "2/7");
}

TEST(Shard, RefusesShardsThatDoNotExist) {
  EXPECT_NE(error_of("0/2").find("shard 0 of 2 does not exist (1 to 2)"), std::string::npos);
  EXPECT_NE(error_of("3/2").find("shard 3 of 2 does not exist"), std::string::npos);
  EXPECT_NE(error_of("1/0").find("\"0\" is not a shard count"), std::string::npos);
  for (const char* bad : {"", "1", "/2", "1/", "a/b", "1/2/3", "-1/2", "1/99999999999"}) {
    EXPECT_FALSE(error_of(bad).empty()) << bad;
  }
}

TEST(Shard, AutoReadsASlurmArray) {
  // --array=5-8: ids 5..8, min 5, count 4.
  EXPECT_EQ(parse_shard("auto", env_of({{"SLURM_ARRAY_TASK_ID", "7"},
                                        {"SLURM_ARRAY_TASK_MIN", "5"},
                                        {"SLURM_ARRAY_TASK_COUNT", "4"}})),
            (Shard{3, 4}));
  EXPECT_NE(error_of("auto").find("reads SLURM_ARRAY_TASK_ID, which is not set"), std::string::npos);
  EXPECT_NE(error_of("auto", env_of({{"SLURM_ARRAY_TASK_ID", "9"},
                                     {"SLURM_ARRAY_TASK_MIN", "5"},
                                     {"SLURM_ARRAY_TASK_COUNT", "4"}}))
                .find("shard 5 of 4 does not exist"),
            std::string::npos)
      << "a sparse --array (5,9) is not a contiguous split";
  EXPECT_NE(error_of("auto", env_of({{"SLURM_ARRAY_TASK_ID", "x"},
                                     {"SLURM_ARRAY_TASK_MIN", "0"},
                                     {"SLURM_ARRAY_TASK_COUNT", "2"}}))
                .find("SLURM_ARRAY_TASK_ID=\"x\" is not a whole number"),
            std::string::npos);
}

TEST(Shard, AutoOfNReadsAKubernetesIndex) {
  EXPECT_EQ(parse_shard("auto/4", env_of({{"JOB_COMPLETION_INDEX", "0"}})), (Shard{1, 4}));
  EXPECT_EQ(parse_shard("auto/4", env_of({{"JOB_COMPLETION_INDEX", "3"}})), (Shard{4, 4}));
  EXPECT_NE(error_of("auto/4", env_of({{"JOB_COMPLETION_INDEX", "4"}})).find("does not exist"),
            std::string::npos);
  EXPECT_NE(error_of("auto/4").find("reads JOB_COMPLETION_INDEX, which is not set"),
            std::string::npos);
  EXPECT_NE(error_of("auto/0", env_of({{"JOB_COMPLETION_INDEX", "0"}})).find("not a shard count"),
            std::string::npos);
}

TEST(Shard, SharesAreDisjointCoverEverythingAndBalanceTheCost) {
  std::vector<double> costs;
  for (int i = 0; i < 40; ++i) costs.push_back(1 + (i * 37) % 101);  // uneven, with repeats
  const double total = std::accumulate(costs.begin(), costs.end(), 0.0);
  for (uint32_t n : {1u, 2u, 3u, 7u}) {
    std::vector<int> owners(costs.size(), 0);
    double heaviest = 0, lightest = total;
    for (uint32_t i = 1; i <= n; ++i) {
      const std::vector<size_t> mine = shard_indices(costs, {i, n});
      EXPECT_EQ(mine, shard_indices(costs, {i, n})) << "the same split every time";
      double load = 0;
      for (size_t p : mine) {
        ++owners[p];
        load += costs[p];
      }
      heaviest = std::max(heaviest, load);
      lightest = std::min(lightest, load);
    }
    for (int o : owners) EXPECT_EQ(o, 1) << n << " shards";
    // Greedy LPT: no shard is heavier than the lightest by more than the largest single cost.
    EXPECT_LE(heaviest - lightest, 101) << n << " shards";
  }
}

TEST(Shard, MoreShardsThanProblemsLeavesSomeEmpty) {
  const std::vector<double> costs = {5, 3};
  EXPECT_EQ(shard_indices(costs, {1, 3}), std::vector<size_t>{0});
  EXPECT_EQ(shard_indices(costs, {2, 3}), std::vector<size_t>{1});
  EXPECT_TRUE(shard_indices(costs, {3, 3}).empty());
}

}  // namespace
}  // namespace vktune::tuner
