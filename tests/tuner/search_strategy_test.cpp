// The three search strategies as pure rules: what stage one measures, and the later stages.
#include "tuner/search_strategy.h"

#include <gtest/gtest.h>

#include "tuner/search.h"

namespace vktune::tuner {
namespace {

std::vector<Candidate> make(size_t count) {
  std::vector<Candidate> list(count);
  for (size_t i = 0; i < count; ++i) list[i].key = std::to_string(i);
  return list;
}

void time(Candidate& c, double median) {
  SampleStats s;
  s.median = median;
  c.stats = s;
}

std::vector<Candidate*> pointers(std::vector<Candidate>& list) {
  std::vector<Candidate*> p;
  for (Candidate& c : list) p.push_back(&c);
  return p;
}

bool no_reference(const Candidate&) { return false; }

TimingOptions full() {
  TimingOptions t;
  t.min_samples = 5;
  t.max_samples = 20;
  return t;
}

TEST(SearchStrategyTest, ExhaustiveHandsOutTheListInOrderSkippingResumedAtFullTiming) {
  std::vector<Candidate> list = make(5);
  list[1].resumed = true;
  const auto s = exhaustive_strategy(list, full());
  EXPECT_EQ(s->first_timing().max_samples, 20u);
  EXPECT_FALSE(s->stage_one_over());
  EXPECT_EQ(s->next(2), (std::vector<size_t>{0, 2}));
  EXPECT_EQ(s->next(10), (std::vector<size_t>{3, 4}));
  EXPECT_TRUE(s->stage_one_over());
  EXPECT_TRUE(s->next(10).empty());
  for (size_t i = 0; i < list.size(); ++i) time(list[i], 100.0 + static_cast<double>(i));
  EXPECT_FALSE(s->next_stage(pointers(list)).has_value());  // everything fully measured
}

TEST(SearchStrategyTest, HalvingEstimatesThenNarrowsToTheFinalists) {
  std::vector<Candidate> list = make(12);
  const auto s = halving_strategy(list, full(), 2, {}, no_reference);
  EXPECT_EQ(s->first_timing().max_samples, stage_timing(full(), 0).max_samples);
  // One family: its screen (family_screen.h), then the rest of it.
  size_t handed_out = 0;
  while (!s->stage_one_over()) handed_out += s->next(100).size();
  EXPECT_EQ(handed_out, 12u);
  for (size_t i = 0; i < list.size(); ++i) time(list[i], 100.0 + static_cast<double>(i));
  std::vector<Candidate*> pool = pointers(list);
  int narrowings = 0;
  while (std::optional<LaterStage> stage = s->next_stage(pool)) {
    ASSERT_TRUE(stage->narrows);  // no reading far behind a neighbour: nothing to recheck
    ++narrowings;
    EXPECT_EQ(stage->timing.max_samples, stage_timing(full(), narrowings).max_samples);
    ASSERT_LT(stage->measure.size(), pool.size());
    pool = stage->measure;
  }
  EXPECT_GE(narrowings, 1);
  EXPECT_EQ(pool.size(), 2u);
  EXPECT_EQ(pool.front()->key, "0");
}

TEST(SearchStrategyTest, HalvingKeepsTheProtectedThroughItsFirstNarrowingOnly) {
  std::vector<Candidate> list = make(12);
  const auto s = halving_strategy(list, full(), 1, {"11"}, no_reference);
  s->next(100);
  for (size_t i = 0; i < list.size(); ++i) time(list[i], 100.0 * static_cast<double>(i + 1));
  std::optional<LaterStage> stage = s->next_stage(pointers(list));
  ASSERT_TRUE(stage && stage->narrows);
  EXPECT_EQ(stage->measure.back()->key, "11");
  stage = s->next_stage(stage->measure);
  ASSERT_TRUE(stage.has_value());
  EXPECT_EQ(stage->measure.size(), 1u);
  EXPECT_EQ(stage->measure.front()->key, "0");
}

TEST(SearchStrategyTest, ModelHandsOutWhatItsSearchPicksAndSaysWhyItStopped) {
  std::vector<Candidate> list = make(4);
  ModelSearchOptions options;
  options.first_minimum = 2;
  options.explore_per_family = 0;
  options.max_fraction = 0.5;
  ModelSearch search({0.0, 3.0, 1.0, 2.0}, {0, 0, 0, 0}, {}, options);
  const auto s = model_strategy(std::move(search), 4, full(), 1, {});
  EXPECT_FALSE(s->stage_one_over());
  const std::vector<size_t> picks = s->next(10);
  EXPECT_EQ(picks, (std::vector<size_t>{0, 2}));  // the model's best-ranked first
  for (size_t i : picks) s->measured(i, 100.0);
  EXPECT_TRUE(s->next(10).empty());  // the cap: half of four
  EXPECT_NE(s->summary().find("estimated 2 of 4 legal variants"), std::string::npos);
}

}  // namespace
}  // namespace vktune::tuner
