#include "tuner/problem_budget.h"

#include <gtest/gtest.h>

namespace vktune::tuner {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;
const ProblemBudget::Clock::time_point t0{};

TEST(ProblemBudget, ExpiresAfterItsShare) {
  const ProblemBudget b(t0, seconds(1));
  EXPECT_FALSE(b.expired(t0 + milliseconds(999)));
  EXPECT_TRUE(b.expired(t0 + seconds(1)));
}

// The lm_head's case: uploads longer than the whole share, then fast variants.
TEST(ProblemBudget, SetupMovesTheDeadlineAndStaysOutOfThePace) {
  ProblemBudget b(t0, seconds(1));
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

TEST(ProblemBudget, ChunkIsAtLeastOneAndAtMostMost) {
  ProblemBudget b(t0, seconds(1));
  b.start_measuring(t0);
  EXPECT_EQ(b.chunk(t0, 0, 64), 64u);  // nothing measured: no pace yet
  EXPECT_EQ(b.chunk(t0 + milliseconds(990), 1, 64), 1u);  // 990 ms a variant, 10 ms left
  EXPECT_EQ(b.chunk(t0 + seconds(2), 4, 64), 1u);  // past the deadline
  EXPECT_EQ(b.chunk(t0 + milliseconds(100), 100, 64), 64u);  // 1 ms a variant, 900 left
  EXPECT_EQ(b.chunk(t0 + milliseconds(480), 10, 64), 10u);  // 48 ms a variant, 520 ms left
}

}  // namespace
}  // namespace vktune::tuner
