#include "tuner/problem_budget.h"

#include <gtest/gtest.h>

namespace vktune::tuner {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;
const ProblemBudget::Clock::time_point t0{};
const ProblemBudget::Clock::time_point never = ProblemBudget::Clock::time_point::max();

TEST(ProblemBudget, ExpiresAfterItsShare) {
  const ProblemBudget b(t0, seconds(1), never);
  EXPECT_FALSE(b.expired(t0 + milliseconds(999)));
  EXPECT_TRUE(b.expired(t0 + seconds(1)));
}

// The lm_head's case: uploads longer than the whole share, then fast variants.
TEST(ProblemBudget, SetupMovesTheDeadlineAndStaysOutOfThePace) {
  ProblemBudget b(t0, seconds(1), never);
  b.add_setup(milliseconds(300));  // data and reference, before measuring
  b.start_measuring(t0 + milliseconds(300));
  b.add_setup(seconds(2));  // the first chunk's uploads
  // 8 variants measured in 85 ms besides the uploads, 10.6 ms each; 3.3 s - 2.385 s left. Were
  // the uploads counted, the pace would be 261 ms and the share spent.
  const auto now = t0 + milliseconds(2385);
  EXPECT_FALSE(b.expired(now));
  EXPECT_EQ(b.chunk(now, 8, 64), 64u);
  EXPECT_EQ(b.chunk(now, 8, 1000), 86u);
  EXPECT_FALSE(b.expired(t0 + milliseconds(3299)));
  EXPECT_TRUE(b.expired(t0 + milliseconds(3300)));
}

// A budgeted run's first problem compiling the pipelines of the whole run: its setup moves the
// deadline, never past the run's end, and the chunks shrink to what is left of the run.
TEST(ProblemBudget, SetupNeverMovesTheDeadlinePastTheRunsEnd) {
  ProblemBudget b(t0, seconds(1), t0 + milliseconds(2750));
  b.start_measuring(t0);
  b.add_setup(seconds(2));  // compiling the first chunk's pipelines: the deadline 3 s, but...
  EXPECT_FALSE(b.expired(t0 + milliseconds(2749)));
  EXPECT_TRUE(b.expired(t0 + milliseconds(2750)));  // ...the run ends first
  // 8 variants measured in 500 ms besides the compiling, 62.5 ms each; 250 ms of the run left.
  EXPECT_EQ(b.chunk(t0 + milliseconds(2500), 8, 64), 4u);
}

TEST(ProblemBudget, ChunkIsAtLeastOneAndAtMostMost) {
  ProblemBudget b(t0, seconds(1), never);
  b.start_measuring(t0);
  EXPECT_EQ(b.chunk(t0, 0, 64), 64u);  // nothing measured: no pace yet
  EXPECT_EQ(b.chunk(t0 + milliseconds(990), 1, 64), 1u);  // 990 ms a variant, 10 ms left
  EXPECT_EQ(b.chunk(t0 + seconds(2), 4, 64), 1u);  // past the deadline
  EXPECT_EQ(b.chunk(t0 + milliseconds(100), 100, 64), 64u);  // 1 ms a variant, 900 left
  EXPECT_EQ(b.chunk(t0 + milliseconds(480), 10, 64), 10u);  // 48 ms a variant, 520 ms left
}

}  // namespace
}  // namespace vktune::tuner
