// The model search's rounds: what it measures first, that a good model lets it stop early on
// the best, that it never passes its cap, that a family the model underrates is corrected, and
// that local moves climb from the best to a better neighbour the model ranks far down.
#include "tuner/model_search.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>

namespace vktune::tuner {
namespace {

// Replays the search over known times; returns the variants it measured, in order.
std::vector<size_t> replay(ModelSearch& search, const std::vector<double>& ns) {
  std::vector<size_t> measured;
  for (auto round = search.next(8); !round.empty(); round = search.next(8)) {
    for (size_t i : round) {
      search.measured(i, ns[i]);
      measured.push_back(i);
    }
  }
  return measured;
}

// 400 variants in 4 families; variant i's time rises with its distance from variant 123.
std::vector<double> times() {
  std::vector<double> ns;
  for (size_t i = 0; i < 400; ++i) ns.push_back(1000.0 * (1 + 0.01 * std::abs(int(i) - 123)));
  return ns;
}
std::vector<size_t> families() {
  std::vector<size_t> f;
  for (size_t i = 0; i < 400; ++i) f.push_back(i % 4);
  return f;
}
size_t fastest(const std::vector<size_t>& measured, const std::vector<double>& ns) {
  return *std::min_element(measured.begin(), measured.end(),
                           [&](size_t a, size_t b) { return ns[a] < ns[b]; });
}

TEST(ModelSearchTest, AGoodModelFindsTheBestAndStopsEarly) {
  const std::vector<double> ns = times();
  std::vector<double> predicted;
  for (double t : ns) predicted.push_back(std::log(t / 1000.0) + 0.3);  // right up to an offset
  ModelSearch search(predicted, families(), {}, {});
  const std::vector<size_t> measured = replay(search, ns);
  EXPECT_EQ(fastest(measured, ns), 123u);
  EXPECT_LT(measured.size(), 400 * 0.1);
  EXPECT_NE(search.stop_reason().find("no unmeasured variant"), std::string::npos);
  EXPECT_EQ(std::set<size_t>(measured.begin(), measured.end()).size(), measured.size());
}

TEST(ModelSearchTest, FirstVariantsComeFirstAndTheCapHolds) {
  const std::vector<double> ns = times();
  const std::vector<double> clueless(ns.size(), 0.0);  // a model that ranks nothing
  ModelSearchOptions options;
  ModelSearch search(clueless, families(), {399, 7}, options);
  const std::vector<size_t> measured = replay(search, ns);
  ASSERT_GE(measured.size(), 2u);
  EXPECT_EQ(measured[0], 399u);
  EXPECT_EQ(measured[1], 7u);
  EXPECT_LE(measured.size(), static_cast<size_t>(std::ceil(options.max_fraction * 400)));
}

TEST(ModelSearchTest, AnUnderratedFamilyIsCorrected) {
  // Family 3 runs 0.7x the others' times (the best, 123, is in it); the model thinks it runs
  // 1.5x them. Exploration measures a few of it, the refit corrects the family.
  std::vector<double> ns = times();
  const std::vector<size_t> family = families();
  std::vector<double> predicted;
  for (size_t i = 0; i < ns.size(); ++i) {
    predicted.push_back(std::log(ns[i] / 1000.0) + (family[i] == 3 ? std::log(1.5) : 0.0));
    if (family[i] == 3) ns[i] *= 0.7;
  }
  ModelSearchOptions options;
  ModelSearch search(predicted, family, {}, options);
  const std::vector<size_t> measured = replay(search, ns);
  EXPECT_LE(ns[fastest(measured, ns)], ns[123] * 1.02);
  EXPECT_LE(measured.size(), static_cast<size_t>(std::ceil(options.max_fraction * 400)));
}

TEST(ModelSearchTest, SameSeedSameOrder) {
  const std::vector<double> ns = times();
  const std::vector<double> predicted(ns.size(), 0.0);
  ModelSearch a(predicted, families(), {}, {}), b(predicted, families(), {}, {});
  EXPECT_EQ(replay(a, ns), replay(b, ns));
}

TEST(ModelSearchTest, LocalMovesClimbToNeighboursTheModelRanksFarDown) {
  // One family of two knobs with 20 values each (variant 20 r + c); one-knob neighbours share a
  // row or a column. The time grows with the distance from (17, 18). The model is right on rows
  // 0-14 and puts rows 15-19 last, as a model does on a shape unlike its training: the first
  // round finds (14, 18), and only the local moves look down its column.
  auto at = [](size_t r, size_t c) { return 20 * r + c; };
  std::vector<double> ns(400), predicted(400);
  std::vector<std::vector<size_t>> neighbours(400);
  for (size_t r = 0; r < 20; ++r) {
    for (size_t c = 0; c < 20; ++c) {
      ns[at(r, c)] = 1000.0 * (1 + 0.05 * std::hypot(double(r) - 17, double(c) - 18));
      for (size_t o = 0; o < 20; ++o) {
        if (o != c) neighbours[at(r, c)].push_back(at(r, o));
        if (o != r) neighbours[at(r, c)].push_back(at(o, c));
      }
    }
  }
  for (size_t i = 0; i < 400; ++i) predicted[i] = i < at(15, 0) ? std::log(ns[i] / 1000.0) : 5.0;
  ModelSearchOptions options;
  options.explore_per_family = 0;
  const std::vector<size_t> one_family(400, 0);
  ModelSearch without(predicted, one_family, {}, options);
  EXPECT_EQ(fastest(replay(without, ns), ns), at(14, 18));
  ModelSearch with(predicted, one_family, {}, options, neighbours);
  const std::vector<size_t> measured = replay(with, ns);
  EXPECT_EQ(fastest(measured, ns), at(17, 18));
  EXPECT_LE(measured.size(), static_cast<size_t>(std::ceil(400 * options.max_fraction)));
  EXPECT_EQ(std::set<size_t>(measured.begin(), measured.end()).size(), measured.size());
}

}  // namespace
}  // namespace vktune::tuner
