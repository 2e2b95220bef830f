// Ranking and halving over measured candidates; per-stage timing.
#include "tuner/search.h"

#include <gtest/gtest.h>

#include "kernels/family.h"
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

TEST(SearchTest, HalvingAdvancesProtectedVariantsWhateverTheirOneSampleRead) {
  // "9" read 2.5x the best in its one sample (a glitch, or slow: one sample cannot tell).
  auto list = make({100, 140, 151, 160, 300, 400, 500, 600, 700, 250, 900, 1000});
  const auto kept = halve(pointers(list), 1, {"9", "absent"});
  ASSERT_EQ(kept.size(), 3u);
  EXPECT_EQ(kept[0]->key, "0");
  EXPECT_EQ(kept[1]->key, "1");
  EXPECT_EQ(kept[2]->key, "9");
  // A protected variant that advances anyway is not repeated; a failed one stays out.
  auto failed = make({100, -1, 120});
  const auto again = halve(pointers(failed), 1, {"0", "1", "2"});
  ASSERT_EQ(again.size(), 2u);
  EXPECT_EQ(again[0]->key, "0");
  EXPECT_EQ(again[1]->key, "2");
}

TEST(SearchTest, RecheckTakesWhatFarTrailsAKeptOneKnobNeighbour) {
  // rms_norm's variants: vec {1, 4} x wg {32, 64, 128, 256, 512}. vec 1 reads 102-132 (kept:
  // within 1.5x of the best), vec 4 reads 180-184 (dropped, within 2x of every neighbour), but
  // vec 4 wg 512 read 450 in its one sample, 3.4x its neighbour vec 1 wg 512.
  const kernels::Family& rms = *kernels::find_family("rms_norm");
  const std::vector<kernels::Knobs> knobs = rms.all_variants();
  std::vector<Candidate> list(knobs.size());
  const Candidate* glitched = nullptr;
  for (size_t i = 0; i < knobs.size(); ++i) {
    list[i].family = &rms;
    list[i].knobs = knobs[i];
    list[i].key = rms.key(knobs[i]);
    const bool vec4 = kernels::knob_u32(knobs[i], "vec") == 4;
    const uint32_t wg = kernels::knob_u32(knobs[i], "wg");
    SampleStats s;
    s.median = vec4 ? 180.0 + wg / 64.0 : 100.0 + wg / 16.0;
    if (vec4 && wg == 512) {
      s.median = 450;
      glitched = &list[i];
    }
    list[i].stats = s;
  }
  ASSERT_NE(glitched, nullptr);
  const Recheck r = recheck(pointers(list));
  ASSERT_EQ(r.again.size(), 1u);
  EXPECT_EQ(r.again[0], glitched);
  EXPECT_DOUBLE_EQ(r.bound, 102.0 * kAdvanceWithin);  // vec 1 wg 32, the best

  // Its kept neighbour failing leaves nothing to measure it against; a failed variant is never
  // taken again.
  for (Candidate& c : list) {
    if (kernels::knob_u32(c.knobs, "vec") == 1 && kernels::knob_u32(c.knobs, "wg") == 512) {
      c.status = db::Status::wrong_result;
    }
  }
  EXPECT_TRUE(recheck(pointers(list)).again.empty());
  EXPECT_TRUE(recheck({}).again.empty());
}

db::Problem record(uint32_t m, uint32_t n, uint32_t k, uint32_t gs, const char* dtype = "f32") {
  return {0, "q4gsw", dtype, m, n, k, gs, 0, 0};
}

TEST(SearchTest, NearestWinnersAreThoseOfTheNearestProblemsOfTheSameKind) {
  const std::vector<std::pair<db::Problem, std::string>> winners = {
      {record(16, 4096, 4096, 32), "m16"},        {record(64, 4096, 4096, 32), "m64"},
      {record(512, 4096, 4096, 32), "m512"},      {record(32, 4096, 14336, 32), "long_k"},
      {record(32, 4096, 4096, 128), "other_gs"},  {record(32, 4096, 4096, 32, "f16"), "f16"},
      {record(32, 4096, 4096, 32), "itself"}};
  const kernels::Problem p{kernels::Op("q4gsw"), 32, 4096, 4096, 32, false};
  // The problem itself (distance 0), then M=16 and M=64 (one distance: one problem), then K=14336.
  EXPECT_EQ(nearest_winners(winners, p, 1), (std::set<std::string>{"itself"}));
  EXPECT_EQ(nearest_winners(winners, p, 2), (std::set<std::string>{"itself", "m16", "m64"}));
  EXPECT_EQ(nearest_winners(winners, p, 3),
            (std::set<std::string>{"itself", "m16", "m64", "long_k"}));
  EXPECT_EQ(nearest_winners(winners, p, 10).count("other_gs"), 0u);
  EXPECT_EQ(nearest_winners(winners, p, 10).count("f16"), 0u);
  EXPECT_TRUE(nearest_winners({}, p, 4).empty());
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
