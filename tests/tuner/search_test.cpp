// Ranking and halving over measured candidates; per-stage timing.
#include "tuner/search.h"

#include <gtest/gtest.h>

#include "kernels/family.h"

namespace vktune::tuner {
namespace {

std::vector<Candidate> make(const std::vector<double>& medians) {
  std::vector<Candidate> list(medians.size());
  for (size_t i = 0; i < medians.size(); ++i) {
    list[i].key = std::to_string(i);
    if (medians[i] < 0) {
      list[i].status = db::Status::wrong_result;
    } else {
      SampleStats s;
      s.median = medians[i];
      list[i].stats = s;
    }
  }
  return list;
}

std::vector<Candidate*> pointers(std::vector<Candidate>& list) {
  std::vector<Candidate*> p;
  for (auto& c : list) p.push_back(&c);
  return p;
}

TEST(SearchTest, RankedSkipsFailuresAndSortsByMedian) {
  auto list = make({5, -1, 2, 9, 1});
  const auto r = ranked(pointers(list));
  ASSERT_EQ(r.size(), 4u);
  EXPECT_EQ(r[0]->key, "4");
  EXPECT_EQ(r[1]->key, "2");
  EXPECT_EQ(r[3]->key, "3");
}

TEST(SearchTest, HalvingKeepsTheBestThirdButNeverFewerThanTheFinalists) {
  auto list = make({109, 108, 107, 106, 105, 104, 103, 102, 101, 110, 111, 112});
  const auto third = halve(pointers(list), 3);
  ASSERT_EQ(third.size(), 4u);
  EXPECT_EQ(third[0]->key, "8");
  EXPECT_EQ(third[3]->key, "5");
  auto small = make({3, 2, 1, 4});
  EXPECT_EQ(halve(pointers(small), 3).size(), 3u);
}

TEST(SearchTest, HalvingDropsWhatIsFarBehindTheBest) {
  // 12 timed: the best third would be 4, but only 100 and 140 are within 1.5x of the best.
  auto list = make({100, 140, 151, 160, 300, 400, 500, 600, 700, 800, 900, 1000});
  const auto kept = halve(pointers(list), 1);
  ASSERT_EQ(kept.size(), 2u);
  EXPECT_EQ(kept[1]->key, "1");
  // ... and never fewer than the finalists.
  EXPECT_EQ(halve(pointers(list), 3).size(), 3u);
}

TEST(SearchTest, OrderPutsWarmWinnersThenBaselinesThenFamiliesInTurn) {
  const auto& families = kernels::families();
  const kernels::Family* a = families[1];
  const kernels::Family* b = families[2];
  std::vector<Candidate> list(7);
  const std::pair<const kernels::Family*, const char*> spec[] = {
      {a, "a0"}, {a, "a1"}, {a, "a2"}, {b, "b0"}, {b, "fixed"}, {b, "b2"}, {a, "warm"}};
  for (size_t i = 0; i < list.size(); ++i) {
    list[i].family = spec[i].first;
    list[i].key = spec[i].second;
    list[i].kernel_id = static_cast<int64_t>(i + 1);
  }
  order_candidates(list, {{"warm", 0.5}, {"a1", 1.5}},
                   [](const Candidate& c) { return c.key == "fixed"; });
  std::vector<std::string> keys;
  for (const auto& c : list) keys.push_back(c.key);
  EXPECT_EQ(keys, (std::vector<std::string>{"warm", "a1", "fixed", "a0", "b0", "a2", "b2"}));
}

TEST(SearchTest, StagesGrowToTheFullMeasurement) {
  TimingOptions full;
  full.min_samples = 10;
  full.max_samples = 40;
  const TimingOptions first = stage_timing(full, 0);
  EXPECT_EQ(first.min_samples, 1u);  // one short sample: the cheap estimate
  EXPECT_EQ(first.max_samples, 1u);
  EXPECT_LT(first.min_sample_ns, full.min_sample_ns);
  EXPECT_LT(first.budget, full.budget);
  const TimingOptions second = stage_timing(full, 1);
  EXPECT_EQ(second.max_samples, 3u);
  EXPECT_EQ(second.min_sample_ns, full.min_sample_ns);
  EXPECT_LT(second.budget, full.budget);
  const TimingOptions late = stage_timing(full, 6);
  EXPECT_EQ(late.max_samples, 40u);
  EXPECT_EQ(late.min_samples, 10u);
  EXPECT_EQ(late.budget, full.budget);
}

}  // namespace
}  // namespace vktune::tuner
