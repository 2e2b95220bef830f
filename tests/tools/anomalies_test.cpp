// find_anomalies on the hand-made database of report_fixture.h, and on a series built here.
#include "tools/report/anomalies.h"

#include <gtest/gtest.h>

#include "tests/tools/report_fixture.h"

namespace vktune::report {
namespace {

using namespace vktune::testing;

TEST(Anomalies, SyntheticDatabase) {
  db::Store store = db::Store::open_memory();
  build_synthetic(store);
  const Summary s = summarize(store);
  // Device 1's q4gsw series, by M: 1 (20 us, complete), 4 (30 us, unknown), 64 (100 us, cut),
  // 128 (50 us, unknown), 256 (100 us, unknown).
  const std::vector<Anomaly> a = find_anomalies(s.devices[0]);
  ASSERT_EQ(a.size(), 3u);
  // M=4's search is of unknown coverage and never ran its neighbours' winners. M=1's search is
  // complete: the tiled 2x4 that wins at M=4 is no result there, and that is no flag.
  EXPECT_EQ(a[0].problem, 1u);
  EXPECT_EQ(a[0].kind, Anomaly::Kind::neighbour_winner_untried);
  EXPECT_EQ(a[0].text, "M=1's winner " + std::string(kGemvTuned) + " has no result here");
  EXPECT_EQ(a[1].problem, 1u);
  EXPECT_EQ(a[1].text, "M=64's winner " + std::string(kTiled88) + " has no result here");
  // M=64 takes twice as long as M=128. M=256 ties M=64, which is no flag: only a larger M
  // that is faster is.
  EXPECT_EQ(a[2].problem, 2u);
  EXPECT_EQ(a[2].kind, Anomaly::Kind::slower_than_larger_m);
  EXPECT_EQ(a[2].text, "slower (100.00 us) than M=128 (50.00 us)");
  EXPECT_TRUE(find_anomalies(s.devices[1]).empty());
}

// A series with one noisy point: only differences past the tolerance count, and the fastest
// larger M is the one named.
TEST(Anomalies, ToleranceAndFastestLargerM) {
  DeviceSummary d;
  auto add = [&](uint32_t m, double ns, uint32_t n = 4096) {
    ProblemSummary p;
    p.problem = fake_problem(m, n, 4096, 32, "q4gsw");
    // assign(count, char): GCC 12 warns (-Wrestrict, a known false positive) on a one-letter
    // literal assigned to a string here.
    p.winner_key.assign(1, 'w');
    p.winner_family.assign(1, 'f');
    p.median_ns = ns;
    p.ok_ns["w"] = ns;
    d.problems.push_back(p);
  };
  add(1, 1000);
  add(2, 1040);
  add(4, 1100);
  add(8, 1060);  // faster than M=4 by 3.6%: within the tolerance
  add(16, 2000);
  add(32, 1500);  // M=16 is 25% slower than M=32 ...
  add(64, 1200);  // ... and 40% slower than M=64, the fastest larger M
  add(32, 100, 8192);  // another series: never compared with the first
  const std::vector<Anomaly> a = find_anomalies(d);
  ASSERT_EQ(a.size(), 2u);
  EXPECT_EQ(a[0].problem, 4u);
  EXPECT_EQ(a[0].text, "slower (2.00 us) than M=64 (1.20 us)");
  EXPECT_EQ(a[1].problem, 5u);
  EXPECT_EQ(a[1].text, "slower (1.50 us) than M=64 (1.20 us)");
}

}  // namespace
}  // namespace vktune::report
