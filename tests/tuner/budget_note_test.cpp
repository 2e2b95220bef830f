// budget_cut_note: what tune says after a run whose --budget cut problems short.
#include "tuner/budget_note.h"

#include <gtest/gtest.h>

namespace vktune::tuner {
namespace {

ProblemOutcome outcome(uint32_t m, size_t legal, size_t measured, size_t resumed, bool cut) {
  ProblemOutcome p;
  p.problem = kernels::Problem{kernels::Op("q4gsw"), m, 4096, 4096, 32, false};
  p.legal = legal;
  p.measured = measured;
  p.resumed = resumed;
  p.budget_cut = cut;
  return p;
}

TEST(BudgetCutNote, NamesTheProblemCutShortestAndHowToFinish) {
  TuneResult r;
  r.problems = {outcome(1, 3000, 2990, 0, false), outcome(4, 3000, 1605, 0, true),
                outcome(8, 3038, 6, 2, true), outcome(16, 100, 9, 0, true)};
  const std::string note = budget_cut_note(r);
  // M 8 reached 8 of 3,038 (resumed ones count), less than M 16's 9 of 100.
  EXPECT_EQ(note.find("budget: 3 of 4 problems were cut short (q4gsw M=8 N=4096 K=4096 gs=32 "
                      "reached 8 of 3038 legal variants)"),
            0u)
      << note;
  EXPECT_NE(note.find("--fill"), std::string::npos);
  EXPECT_NE(note.find("--budget"), std::string::npos);
}

TEST(BudgetCutNote, SaysNothingWhereNothingWasCut) {
  TuneResult r;
  EXPECT_EQ(budget_cut_note(r), "");
  r.problems = {outcome(1, 10, 10, 0, false), outcome(2, 10, 4, 6, false)};
  EXPECT_EQ(budget_cut_note(r), "");
}

}  // namespace
}  // namespace vktune::tuner
