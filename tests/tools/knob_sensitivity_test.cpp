// knob_sensitivity on summaries built here: the geometric mean per value, the spread order,
// what is left out, and the marks of the rendered table.
#include "tools/report/knob_sensitivity.h"

#include <cmath>
#include <map>

#include <gtest/gtest.h>

namespace vktune::report {
namespace {

ProblemSummary problem(uint32_t m, std::string winner_family, double winner_ns,
                       std::map<std::string, double> ok_ns) {
  ProblemSummary p;
  p.problem.op = "q4gsw";
  p.problem.m = m;
  p.winner_family = std::move(winner_family);
  p.median_ns = winner_ns;
  p.ok_ns = std::move(ok_ns);
  return p;
}

TEST(KnobSensitivity, GeometricMeanOfTheBestPerValueOverWonProblems) {
  DeviceSummary d;
  // Problem 1: wg=64 wins at 100; the best wg=128 variant takes 200. tm only ever 4 and 8,
  // each value's best is the winner's time or close.
  d.problems.push_back(problem(1, "fam", 100,
                               {{"fam[tm=4,wg=64]", 100},
                                {"fam[tm=8,wg=64]", 101},
                                {"fam[tm=4,wg=128]", 200},
                                {"fam[tm=8,wg=128]", 400},
                                {"other[x=1]", 50}}));
  // Problem 2: wg=128 costs 8x here, so its geometric mean over both is sqrt(2 * 8) = 4.
  d.problems.push_back(problem(2, "fam", 10,
                               {{"fam[tm=4,wg=64]", 10}, {"fam[tm=8,wg=64]", 10},
                                {"fam[tm=4,wg=128]", 80}}));
  // Won by another family: fam's variants here are no evidence about fam's winning shapes.
  d.problems.push_back(problem(3, "other", 1, {{"other[x=1]", 1}, {"fam[tm=4,wg=128]", 1000}}));

  const std::vector<FamilySensitivity> s = knob_sensitivity(d);
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].family, "fam");
  EXPECT_EQ(s[0].problems_won, 2);
  EXPECT_EQ(s[1].family, "other");
  ASSERT_EQ(s[0].knobs.size(), 2u);
  // wg has the widest spread, so it comes first although the key lists tm first.
  const KnobSensitivity& wg = s[0].knobs[0];
  EXPECT_EQ(wg.knob, "wg");
  ASSERT_EQ(wg.values.size(), 2u);
  EXPECT_EQ(wg.values[0].value, "64");  // numeric order, not text order
  EXPECT_DOUBLE_EQ(wg.values[0].geomean_slowdown, 1.0);
  EXPECT_EQ(wg.values[1].value, "128");
  EXPECT_NEAR(wg.values[1].geomean_slowdown, 4.0, 1e-12);
  EXPECT_EQ(wg.values[1].problems, 2);
  EXPECT_NEAR(wg.spread, 4.0, 1e-12);
  const KnobSensitivity& tm = s[0].knobs[1];
  EXPECT_EQ(tm.knob, "tm");
  EXPECT_NEAR(tm.values[1].geomean_slowdown, std::sqrt(1.01), 1e-12);
  EXPECT_NEAR(tm.spread, std::sqrt(1.01), 1e-12);
}

TEST(KnobSensitivity, UnparsableKeysAndUnwonDevicesGiveNothing) {
  DeviceSummary d;
  d.problems.push_back(problem(1, "fam", 100, {{"fam[tm=4", 100}, {"fam[wg=64]", 100}}));
  d.problems.push_back(problem(2, "", 0, {{"fam[wg=64]", 5}}));
  const std::vector<FamilySensitivity> s = knob_sensitivity(d);
  ASSERT_EQ(s.size(), 1u);
  ASSERT_EQ(s[0].knobs.size(), 1u);
  EXPECT_EQ(s[0].knobs[0].knob, "wg");
  EXPECT_EQ(s[0].knobs[0].values[0].problems, 1);
  EXPECT_EQ(render_knob_sensitivity({}), "");
}

TEST(KnobSensitivity, RenderMarksCostlyValues) {
  DeviceSummary d;
  d.problems.push_back(problem(1, "fam", 100, {{"fam[wg=64]", 100}, {"fam[wg=128]", 130}}));
  const std::string html = render_knob_sensitivity(knob_sensitivity(d));
  EXPECT_NE(html.find("fam: won 1 problem"), std::string::npos) << html;
  EXPECT_NE(html.find("<span class=\"knobval good\">64: 1.00x (1)</span>"), std::string::npos) << html;
  EXPECT_NE(html.find("<span class=\"knobval bad\">128: 1.30x (1)</span>"), std::string::npos);
}

}  // namespace
}  // namespace vktune::report
