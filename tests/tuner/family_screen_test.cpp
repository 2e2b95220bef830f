// Halving's family screen as a pure rule: what it screens, what it drops and what it keeps.
#include "tuner/family_screen.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <map>
#include <numeric>
#include <set>

#include "kernels/family.h"

namespace vktune::tuner {
namespace {

// `per_family` candidates of each named family, keyed "<family>/<i>", in family-major order.
std::vector<Candidate> make(const std::vector<std::string>& families, size_t per_family) {
  std::vector<Candidate> list;
  for (const std::string& name : families) {
    for (size_t i = 0; i < per_family; ++i) {
      Candidate& c = list.emplace_back();
      c.family = &*kernels::find_family(name);
      c.key = name + "/" + std::to_string(i);
    }
  }
  return list;
}

bool none(const Candidate&) { return false; }

// Hands out and "measures" what the screen names, each at `time(candidate)`, until it is over.
std::vector<size_t> run(FamilyScreen& screen, const std::vector<Candidate>& list,
                        const std::function<std::optional<double>(const Candidate&)>& time,
                        size_t chunk) {
  std::vector<size_t> measured;
  while (!screen.over()) {
    const std::vector<size_t> picks = screen.next(chunk);
    if (picks.empty()) break;
    for (size_t i : picks) {
      screen.measured(i, time(list[i]));
      measured.push_back(i);
    }
  }
  return measured;
}

TEST(FamilyScreenTest, ScreensEveryFamilyFirstThenDropsTheOnesFarBehind) {
  const std::vector<Candidate> list = make({"q4gsw_gemv", "q4gsw_tiled", "q4gsw_coopmat"}, 20);
  FamilyScreen screen(list, none, {.probes = 3, .within = 4.0});
  // The screen: three of each family, in the list's order, before anything else.
  const std::vector<size_t> first = screen.next(100);
  ASSERT_EQ(first.size(), 9u);
  EXPECT_TRUE(std::ranges::is_sorted(first));
  std::map<const kernels::Family*, size_t> per_family;
  for (size_t i : first) ++per_family[list[i].family];
  for (const auto& [family, count] : per_family) EXPECT_EQ(count, 3u) << family->name();
  // gemv at 10, coopmat at 39 (within 4x: kept), tiled at 41 (behind: dropped).
  const auto time = [](const Candidate& c) -> std::optional<double> {
    if (c.family->name() == "q4gsw_gemv") return 10.0;
    return c.family->name() == "q4gsw_tiled" ? 41.0 : 39.0;
  };
  for (size_t i : first) screen.measured(i, time(list[i]));
  const std::vector<size_t> rest = run(screen, list, time, 7);
  EXPECT_TRUE(screen.over());
  EXPECT_EQ(rest.size(), 34u);  // the 17 unscreened of gemv and of coopmat
  for (size_t i : rest) EXPECT_NE(list[i].family->name(), "q4gsw_tiled");
  EXPECT_EQ(std::set<size_t>(rest.begin(), rest.end()).size(), rest.size());
  EXPECT_NE(screen.summary().find("q4gsw_tiled (17 variants left out, best screened 4.1x"),
            std::string::npos)
      << screen.summary();
}

TEST(FamilyScreenTest, ExemptCandidatesAreScreenedAndNeverLeftOut) {
  const std::vector<Candidate> list = make({"q4gsw_gemv", "q4gsw_tiled"}, 12);
  const auto exempt = [](const Candidate& c) { return c.key == "q4gsw_tiled/11"; };
  FamilyScreen screen(list, exempt, {.probes = 2, .within = 2.0});
  const std::vector<size_t> first = screen.next(100);
  EXPECT_EQ(first.size(), 5u);  // two of each, and the exempt one
  EXPECT_NE(std::ranges::find(first, size_t{23}), first.end());
  const auto time = [](const Candidate& c) -> std::optional<double> {
    return c.family->name() == "q4gsw_gemv" ? 1.0 : 100.0;
  };
  for (size_t i : first) screen.measured(i, time(list[i]));
  const std::vector<size_t> rest = run(screen, list, time, 100);
  EXPECT_EQ(rest.size(), 10u);  // gemv's; tiled's are left out
}

TEST(FamilyScreenTest, AFamilyWithoutATimeStaysAndTheSummaryIsEmptyWhenNoneIsDropped) {
  const std::vector<Candidate> list = make({"q4gsw_gemv", "q4gsw_tiled"}, 6);
  FamilyScreen screen(list, none, {.probes = 2, .within = 2.0});
  // tiled's screened variants all fail: nothing to drop it on.
  const auto time = [](const Candidate& c) -> std::optional<double> {
    if (c.family->name() == "q4gsw_gemv") return 1.0;
    return std::nullopt;
  };
  EXPECT_EQ(run(screen, list, time, 3).size(), 12u);
  EXPECT_EQ(screen.summary(), "");
}

TEST(FamilyScreenTest, AResumedCandidatesTimeCountsAsScreenedAndItIsNotHandedOut) {
  std::vector<Candidate> list = make({"q4gsw_gemv", "q4gsw_tiled"}, 6);
  // A resumed gemv at 1: tiled's screened 3 is behind it by more than 2x.
  list[0].resumed = true;
  list[0].stats = SampleStats{};
  list[0].stats->median = 1.0;
  FamilyScreen screen(list, none, {.probes = 2, .within = 2.0});
  const auto time = [](const Candidate& c) -> std::optional<double> {
    return c.family->name() == "q4gsw_gemv" ? 1.5 : 3.0;
  };
  const std::vector<size_t> measured = run(screen, list, time, 100);
  EXPECT_EQ(std::ranges::find(measured, size_t{0}), measured.end());
  EXPECT_EQ(measured.size(), 7u);  // gemv's five not resumed, tiled's two screened
}

TEST(FamilyScreenTest, AResumedRunHandsOutOnlyWhatTheInterruptedOneDidNotMeasure) {
  const std::vector<Candidate> fresh = make({"q4gsw_gemv", "q4gsw_tiled"}, 10);
  const auto time = [](const Candidate& c) -> std::optional<double> {
    return c.family->name() == "q4gsw_gemv" ? 1.0 : 9.0;
  };
  // The interrupted run measured its screen and nothing after it.
  FamilyScreen first(fresh, none, {.probes = 3, .within = 4.0});
  const std::vector<size_t> screened = first.next(100);
  ASSERT_EQ(screened.size(), 6u);
  std::vector<Candidate> resumed = make({"q4gsw_gemv", "q4gsw_tiled"}, 10);
  for (size_t i : screened) {
    resumed[i].resumed = true;
    resumed[i].stats = SampleStats{};
    resumed[i].stats->median = *time(resumed[i]);
  }
  FamilyScreen again(resumed, none, {.probes = 3, .within = 4.0});
  const std::vector<size_t> measured = run(again, resumed, time, 100);
  EXPECT_EQ(measured.size(), 7u);  // gemv's seven unscreened; tiled left out as before
  for (size_t i : measured) EXPECT_EQ(resumed[i].family->name(), "q4gsw_gemv");
}

TEST(FamilyScreenTest, ScreenAllHandsOutEveryVariantInTheListsOrderWhateverItReads) {
  const std::vector<Candidate> list = make({"q4gsw_gemv", "q4gsw_tiled"}, 10);
  FamilyScreen screen(list, none, kScreenAll);
  const auto time = [](const Candidate& c) -> std::optional<double> {
    return c.family->name() == "q4gsw_gemv" ? 1.0 : 100.0;
  };
  std::vector<size_t> all(list.size());
  std::iota(all.begin(), all.end(), size_t{0});
  EXPECT_EQ(run(screen, list, time, 3), all);
  EXPECT_EQ(screen.summary(), "");
}

}  // namespace
}  // namespace vktune::tuner
