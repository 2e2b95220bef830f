// summarize() and render_table() on the hand-made database of report_fixture.h.
#include "tools/report/summary.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <cmath>

#include "db/schema.h"
#include "db/sqlite.h"
#include "tests/tools/report_fixture.h"

namespace vktune::report {
namespace {

using namespace vktune::testing;

const ProblemSummary& find(const DeviceSummary& d, const std::string& op, uint32_t m) {
  for (const auto& p : d.problems) {
    if (p.problem.op == op && p.problem.m == m) return p;
  }
  ADD_FAILURE() << "no problem " << op << " M=" << m;
  static const ProblemSummary none;
  return none;
}

class SummaryTest : public ::testing::Test {
 protected:
  void SetUp() override { ids_ = build_synthetic(store_); }
  db::Store store_ = db::Store::open_memory();
  SyntheticIds ids_;
};

TEST_F(SummaryTest, WinnersAndSpeedups) {
  const Summary s = summarize(store_);
  ASSERT_EQ(s.devices.size(), 2u);
  const DeviceSummary& d1 = s.devices[0];
  EXPECT_EQ(d1.device.name, kDevice1Name);
  ASSERT_EQ(d1.problems.size(), 6u);
  // Ordered by op, then M.
  EXPECT_EQ(d1.problems[0].problem.m, 1u);
  EXPECT_EQ(d1.problems[4].problem.m, 256u);
  EXPECT_EQ(d1.problems[5].problem.op, "rms_norm");

  const ProblemSummary& p1 = find(d1, "q4gsw", 1);
  EXPECT_EQ(p1.winner_key, kGemvTuned);
  EXPECT_EQ(p1.winner_family, "q4gsw_gemv");
  EXPECT_DOUBLE_EQ(p1.median_ns, 20000);
  EXPECT_DOUBLE_EQ(p1.gbps.value(), 500);  // of the winning row, not the later re-measurement
  EXPECT_DOUBLE_EQ(p1.gflops.value(), 125);
  EXPECT_DOUBLE_EQ(p1.pct_bandwidth.value(), 50);
  EXPECT_EQ(p1.naive_key.value(), kNaive128);
  EXPECT_DOUBLE_EQ(p1.naive_ns.value(), 300000);
  EXPECT_DOUBLE_EQ(p1.speedup_naive.value(), 15);
  EXPECT_EQ(p1.fixed_key, kGemvFixed);
  EXPECT_DOUBLE_EQ(p1.fixed_ns.value(), 40000);
  EXPECT_DOUBLE_EQ(p1.speedup_fixed.value(), 2);

  const ProblemSummary& p2 = find(d1, "q4gsw", 4);
  EXPECT_EQ(p2.winner_key, kTiled24);
  EXPECT_EQ(p2.fixed_key, kTiledFixed);  // M > 1: tiled 4x4
  EXPECT_DOUBLE_EQ(p2.speedup_fixed.value(), 3);
  EXPECT_DOUBLE_EQ(p2.speedup_naive.value(), 20);

  const ProblemSummary& p3 = find(d1, "q4gsw", 64);
  EXPECT_EQ(p3.winner_key, kTiled88);  // the faster 1x1 was wrong in a later run
  EXPECT_DOUBLE_EQ(p3.speedup_fixed.value(), 2);
  EXPECT_DOUBLE_EQ(p3.speedup_naive.value(), 40);

  const ProblemSummary& p4 = find(d1, "q4gsw", 256);
  EXPECT_DOUBLE_EQ(p4.speedup_fixed.value(), 8);
  EXPECT_DOUBLE_EQ(p4.speedup_naive.value(), 80);

  const ProblemSummary& p5 = find(d1, "q4gsw", 128);
  EXPECT_EQ(p5.winner_key, kTiled88);
  EXPECT_EQ(p5.fixed_key, kTiledFixed);
  EXPECT_FALSE(p5.fixed_ns.has_value());
  EXPECT_FALSE(p5.speedup_fixed.has_value());
  EXPECT_FALSE(p5.speedup_naive.has_value());

  const ProblemSummary& p6 = find(d1, "rms_norm", 8);
  EXPECT_EQ(p6.winner_key, kRms512);
  EXPECT_EQ(p6.fixed_key, kRmsFixed);
  EXPECT_DOUBLE_EQ(p6.speedup_fixed.value(), 2);
  EXPECT_FALSE(p6.naive_ns.has_value());

  // Device 2: no copy bandwidth, so no %BW.
  const DeviceSummary& d2 = s.devices[1];
  ASSERT_EQ(d2.problems.size(), 1u);
  EXPECT_DOUBLE_EQ(d2.problems[0].median_ns, 25000);
  EXPECT_DOUBLE_EQ(d2.problems[0].speedup_fixed.value(), 2);
  EXPECT_FALSE(d2.problems[0].pct_bandwidth.has_value());
}

TEST_F(SummaryTest, RunnerUpAndSpread) {
  const Summary s = summarize(store_);
  const DeviceSummary& d1 = s.devices[0];
  // P1: the fixed gemv is next, twice the winner's time; the fixture's quantiles are
  // 0.95 and 1.1 of the median.
  const ProblemSummary& p1 = find(d1, "q4gsw", 1);
  EXPECT_EQ(p1.runner_up_key, kGemvFixed);
  EXPECT_DOUBLE_EQ(p1.runner_up_ns.value_or(0), 40000);
  EXPECT_DOUBLE_EQ(p1.margin_pct().value_or(0), 100.0);
  EXPECT_NEAR(p1.spread_pct().value_or(0), 15.0, 1e-9);
  EXPECT_DOUBLE_EQ(p1.p10_ns.value_or(0), 20000 * 0.95);
  // P3: the 1x1 tile is faster but wrong in run 2, so the runner-up is the wide 8x8.
  const ProblemSummary& p3 = find(d1, "q4gsw", 64);
  EXPECT_EQ(p3.runner_up_key, kTiled88Wide);
  EXPECT_DOUBLE_EQ(p3.margin_pct().value_or(0), 50.0);
  EXPECT_EQ(p3.ok_ns.count(kTiled11), 0u);
  EXPECT_EQ(p3.ok_ns.size(), 5u);
  // P5: one variant, no runner-up.
  const ProblemSummary& p5 = find(d1, "q4gsw", 128);
  EXPECT_TRUE(p5.runner_up_key.empty());
  EXPECT_FALSE(p5.margin_pct());
}

TEST_F(SummaryTest, AKeyMeasuredUnderTwoShaderVersionsIsOneVariantWithItsFastestTime) {
  // The runner-up of P1 is the fixed gemv at 40 us; the same key under a changed shader (a
  // second kernel row), measured slower later, must not replace that time.
  db::KernelRecord changed = synthetic_kernel(kGemvFixed);
  changed.source_hash = "changed-shader";
  const int64_t again = store_.upsert_kernel(changed);
  const int64_t p1 = store_.upsert_problem(fake_problem(1, 4096, 4096, 32, "q4gsw"));
  store_.add_measurement(ok_measurement(ids_.run2, ids_.device1, p1, again, 90000));
  const Summary s = summarize(store_);
  const ProblemSummary& p = find(s.devices[0], "q4gsw", 1);
  EXPECT_DOUBLE_EQ(p.ok_ns.at(kGemvFixed), 40000);
  EXPECT_EQ(p.runner_up_key, kGemvFixed);
  EXPECT_DOUBLE_EQ(p.runner_up_ns.value_or(0), 40000);
  // And it is one variant of the five measured, not a sixth.
  EXPECT_EQ(p.measured(), 5);
}

TEST_F(SummaryTest, GeomeanPerMClass) {
  const Summary s = summarize(store_);
  const auto& g = s.devices[0].geomean_fixed;
  ASSERT_EQ(g.size(), 5u);
  EXPECT_EQ(g[0].label, "1");
  EXPECT_EQ(g[1].label, "2-8");
  EXPECT_EQ(g[2].label, "16-64");
  EXPECT_EQ(g[3].label, ">=128");
  EXPECT_EQ(g[4].label, "all");
  EXPECT_EQ(g[0].count, 1);
  EXPECT_NEAR(g[0].speedup.value(), 2.0, 1e-12);
  EXPECT_NEAR(g[1].speedup.value(), 3.0, 1e-12);
  EXPECT_NEAR(g[2].speedup.value(), 2.0, 1e-12);
  EXPECT_EQ(g[3].count, 1);  // M=128 has no fixed measurement; only M=256 counts
  EXPECT_NEAR(g[3].speedup.value(), 8.0, 1e-12);
  EXPECT_EQ(g[4].count, 5);  // the four q4gsw problems with a fixed time, and rms_norm
  EXPECT_NEAR(g[4].speedup.value(), std::pow(2.0 * 3 * 2 * 8 * 2, 1.0 / 5), 1e-12);

  const auto& g2 = s.devices[1].geomean_fixed;
  EXPECT_EQ(g2[1].count, 0);
  EXPECT_FALSE(g2[1].speedup.has_value());
}

TEST_F(SummaryTest, StatusCountsFamiliesAndTiles) {
  const Summary s = summarize(store_);
  const ProblemSummary& p3 = find(s.devices[0], "q4gsw", 64);
  EXPECT_EQ(p3.status_counts[db::Status::ok], 5);  // four tiled and the naive
  EXPECT_EQ(p3.status_counts[db::Status::wrong_result], 1);
  EXPECT_EQ(p3.status_counts[db::Status::compile_error], 1);
  EXPECT_EQ(p3.status_counts.total(), 7);

  ASSERT_EQ(p3.family_best.size(), 2u);
  EXPECT_EQ(p3.family_best[0].family, "q4gsw_tiled");
  EXPECT_DOUBLE_EQ(p3.family_best[0].median_ns, 100000);
  EXPECT_EQ(p3.family_best[1].family, "q4gsw_naive");

  ASSERT_EQ(p3.tiles.size(), 3u);  // 1x1 was wrong: no cell
  EXPECT_EQ(p3.tiles[0].tm, 2u);
  EXPECT_EQ(p3.tiles[0].tn, 4u);
  EXPECT_DOUBLE_EQ(p3.tiles[0].median_ns, 160000);
  EXPECT_EQ(p3.tiles[1].tm, 4u);
  EXPECT_DOUBLE_EQ(p3.tiles[1].median_ns, 200000);
  EXPECT_EQ(p3.tiles[2].tm, 8u);
  EXPECT_DOUBLE_EQ(p3.tiles[2].median_ns, 100000);  // best of bk=32 and wg=128
  EXPECT_EQ(p3.tiles[2].variant_key, kTiled88);

  int64_t total = 0;
  for (const auto& p : s.devices[0].problems) total += p.status_counts.total();
  EXPECT_EQ(s.devices[0].status_counts.total(), total);
  EXPECT_EQ(s.runs.size(), 2u);
}

TEST_F(SummaryTest, DeviceFilter) {
  SummaryOptions o;
  o.device = "<gpu>";  // case-insensitive substring
  Summary s = summarize(store_, o);
  ASSERT_EQ(s.devices.size(), 1u);
  EXPECT_EQ(s.devices[0].device.name, kDevice2Name);
  EXPECT_EQ(s.runs.size(), 1u);  // device 2 appears in run 2 only

  o.device = std::to_string(ids_.device1);
  s = summarize(store_, o);
  ASSERT_EQ(s.devices.size(), 1u);
  EXPECT_EQ(s.devices[0].device.id, ids_.device1);

  o.device = "no such gpu";
  EXPECT_THROW(summarize(store_, o), std::invalid_argument);
}

TEST_F(SummaryTest, RenderTable) {
  const std::string t = render_table(summarize(store_));
  EXPECT_NE(t.find("problem"), std::string::npos);
  EXPECT_NE(t.find("x fixed"), std::string::npos);
  // P1: 20 us, 500 GB/s, 50 %BW, 125 GFLOP/s, x15 naive, x2 fixed.
  const size_t row = t.find("q4gsw M=1 N=4096 K=4096 gs=32");
  ASSERT_NE(row, std::string::npos);
  const std::string line = t.substr(row, t.find('\n', row) - row);
  EXPECT_NE(line.find(kGemvTuned), std::string::npos);
  EXPECT_NE(line.find("20.00"), std::string::npos);
  EXPECT_NE(line.find("500.0"), std::string::npos);
  EXPECT_NE(line.find("50.0"), std::string::npos);
  EXPECT_NE(line.find("125.0"), std::string::npos);
  EXPECT_NE(line.find("15.00x"), std::string::npos);
  EXPECT_NE(line.find("2.00x"), std::string::npos);
  EXPECT_NE(t.find("M >=128: 8.00x (n=1)"), std::string::npos);
  EXPECT_NE(t.find(kDevice2Name), std::string::npos);
}

TEST_F(SummaryTest, CoverageIsMeasuredOutOfLegal) {
  const Summary s = summarize(store_);
  const DeviceSummary& d1 = s.devices[0];
  const ProblemSummary& p1 = find(d1, "q4gsw", 1);
  ASSERT_TRUE(p1.coverage);
  EXPECT_EQ(p1.measured(), 5);
  EXPECT_EQ(p1.cut(), false);
  EXPECT_EQ(format_coverage(p1), "5/5");
  EXPECT_EQ(format_stages(p1), "5>2");

  const ProblemSummary& p3 = find(d1, "q4gsw", 64);
  EXPECT_EQ(p3.cut(), true);
  EXPECT_EQ(format_coverage(p3), "7/12 cut");

  // Cut in run 1, finished by run 2: the latest record decides, and results of every run count.
  const ProblemSummary& p6 = find(d1, "rms_norm", 8);
  EXPECT_EQ(p6.cut(), false);
  EXPECT_EQ(format_coverage(p6), "2/2");
  EXPECT_EQ(format_stages(p6), "1");

  // No record: unknown, not complete.
  const ProblemSummary& p2 = find(d1, "q4gsw", 4);
  EXPECT_FALSE(p2.coverage);
  EXPECT_FALSE(p2.cut().has_value());
  EXPECT_EQ(format_coverage(p2), "3/?");
  EXPECT_EQ(format_stages(p2), "");

  const std::string t = render_table(s);
  auto line_of = [&](const std::string& label) {
    const size_t row = t.find(label);
    return row == std::string::npos ? std::string() : t.substr(row, t.find('\n', row) - row);
  };
  EXPECT_TRUE(line_of("q4gsw M=64 ").ends_with(" 7/12 cut")) << t;
  EXPECT_TRUE(line_of("q4gsw M=1 ").ends_with(" 5/5")) << t;
  EXPECT_TRUE(line_of("q4gsw M=4 ").ends_with(" 3/?")) << t;
}

TEST_F(SummaryTest, CoverageOfTheLatestRunByStartTime) {
  const int64_t p1 = store_.upsert_problem(fake_problem(1, 4096, 4096, 32, "q4gsw"));
  auto cut_record = [&](const char* uuid, const char* started_at) {
    db::RunRecord r;
    r.uuid = uuid;
    r.started_at = started_at;
    store_.put_coverage(coverage(store_.begin_run(r), ids_.device1, p1, 5, {}, true));
    return format_coverage(find(summarize(store_).devices[0], "q4gsw", 1));
  };
  // Merged in after run 1 (a higher row id) but started before it: an older record.
  EXPECT_EQ(cut_record("run-early", "2024-04-01T00:00:00Z"), "5/5");
  // The latest run was cut: the problem is, although every legal variant has a result.
  EXPECT_EQ(cut_record("run-late", "2024-06-01T00:00:00Z"), "5/5 cut");
}

TEST_F(SummaryTest, FewerMeasuredThanLegalIsCutWithoutTheBudgetFlag) {
  // Whatever left them unmeasured, legal variants without a result leave the search unfinished.
  const int64_t p2 = store_.upsert_problem(fake_problem(4, 4096, 4096, 32, "q4gsw"));
  store_.put_coverage(coverage(ids_.run1, ids_.device1, p2, 4, {3}, false));
  const Summary s = summarize(store_);
  const ProblemSummary& p = find(s.devices[0], "q4gsw", 4);
  EXPECT_EQ(p.cut(), true);
  EXPECT_EQ(format_coverage(p), "3/4 cut");
}

TEST_F(SummaryTest, AModelOrHalvingSearchMeasuringPartOfTheVariantsIsSearchedNotCut) {
  const int64_t p2 = store_.upsert_problem(fake_problem(4, 4096, 4096, 32, "q4gsw"));
  for (const std::string strategy : {"model", "halving"}) {
    SCOPED_TRACE(strategy);
    db::RunRecord r;
    r.uuid = strategy + "-run";
    r.started_at = "2024-06-01T00:00:00Z";
    r.strategy = strategy;
    const int64_t run = store_.begin_run(r);
    // Finished, it is searched; cut by its budget, it is cut, whatever the strategy.
    for (const bool budget_cut : {false, true}) {
      store_.put_coverage(coverage(run, ids_.device1, p2, 4, {3}, budget_cut));
      const Summary s = summarize(store_);
      const ProblemSummary& p = find(s.devices[0], "q4gsw", 4);
      EXPECT_EQ(p.cut(), budget_cut);
      EXPECT_EQ(p.searched(), !budget_cut);
      EXPECT_EQ(format_coverage(p), budget_cut ? "3/4 cut" : "3/4 searched");
    }
  }
}

TEST_F(SummaryTest, ProblemCutBeforeItsFirstResultIsListed) {
  const int64_t p2 = store_.upsert_problem(fake_problem(4, 4096, 4096, 32, "q4gsw"));
  store_.put_coverage(coverage(ids_.run2, ids_.device2, p2, 40, {}, true));
  const Summary s = summarize(store_);
  const DeviceSummary& d2 = s.devices[1];
  ASSERT_EQ(d2.problems.size(), 2u);
  const ProblemSummary& cut = find(d2, "q4gsw", 4);
  EXPECT_TRUE(cut.winner_key.empty());
  EXPECT_EQ(format_coverage(cut), "0/40 cut");
}

TEST(SummaryCoverage, DatabaseFromBeforeSchemaV3IsUnknown) {
  TempDir dir;
  const std::string path = dir.file("v2.db");
  {
    db::Connection c = db::Connection::open(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, path);
    db::migrate(c, 2);
    c.exec(testing::kOldDatabaseRows);
  }
  const db::Store store = db::Store::open(path);  // migrates to v3: no coverage rows
  const Summary s = summarize(store);
  ASSERT_EQ(s.devices.size(), 1u);
  ASSERT_EQ(s.devices[0].problems.size(), 1u);
  const ProblemSummary& p = s.devices[0].problems[0];
  EXPECT_FALSE(p.cut().has_value());
  EXPECT_EQ(format_coverage(p), "1/?");
  EXPECT_NE(render_table(s).find(" 1/?\n"), std::string::npos) << render_table(s);
}

TEST(SummaryHelpers, MClassBoundaries) {
  EXPECT_EQ(m_class(1), 0u);
  EXPECT_EQ(m_class(2), 1u);
  EXPECT_EQ(m_class(8), 1u);
  EXPECT_EQ(m_class(9), 2u);
  EXPECT_EQ(m_class(64), 2u);
  EXPECT_EQ(m_class(65), 3u);
  EXPECT_EQ(m_class(4096), 3u);
  EXPECT_FALSE(geometric_mean({}).has_value());
  EXPECT_NEAR(geometric_mean({4, 9}).value(), 6.0, 1e-12);
}

TEST(SummaryHelpers, ProblemLabelRoundTrip) {
  const db::Problem p = db::ops::parse_problem_label("q4gsw M=64 N=4096 K=11008 gs=128");
  EXPECT_EQ(p.op, "q4gsw");
  EXPECT_EQ(p.dtype, "f32");
  EXPECT_EQ(p.m, 64u);
  EXPECT_EQ(p.n, 4096u);
  EXPECT_EQ(p.k, 11008u);
  EXPECT_EQ(p.group_size, 128u);
  EXPECT_EQ(db::ops::problem_label(p), "q4gsw M=64 N=4096 K=11008 gs=128");
  const db::Problem r = db::ops::parse_problem_label("rms_norm m=8 n=4096");
  EXPECT_EQ(r.k, 4096u);
  EXPECT_EQ(r.group_size, 0u);
  EXPECT_THROW(db::ops::parse_problem_label("q4gsw M=x N=1 K=2 gs=2"), std::invalid_argument);
  EXPECT_THROW(db::ops::parse_problem_label("q4gsw M=1"), std::invalid_argument);
  EXPECT_THROW(db::ops::parse_problem_label("q4gsw M=1 N=2 K=2 bogus=3"), std::invalid_argument);
  // sdpa reads as kernels::describe writes it: context L, query and KV heads, head dim D.
  const db::Problem a = db::ops::parse_problem_label("sdpa M=1 L=8192 Hq=32 Hkv=8 D=128");
  EXPECT_EQ(a.n, 8192u);
  EXPECT_EQ(a.k, 128u);
  EXPECT_EQ(a.heads, 32u);
  EXPECT_EQ(a.kv_heads, 8u);
  EXPECT_EQ(db::ops::problem_label(a), "sdpa M=1 L=8192 Hq=32 Hkv=8 D=128");
}

}  // namespace
}  // namespace vktune::report
