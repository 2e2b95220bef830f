// The correctness gate over sampled rows: right output passes, a wrong checked row fails and
// is reported at its place in the whole output.
#include "tuner/gate.h"

#include <gtest/gtest.h>

#include <cmath>

namespace vktune::tuner {
namespace {

TEST(GateTest, SamplesRowsAndCatchesAWrongOne) {
  const kernels::Problem p{kernels::Op("q4gsw"), 10, 24, 64, 32, true};
  const kernels::ProblemData data = kernels::make_random(p, 3);
  const kernels::Reference full = kernels::reference(p, data);
  std::vector<float> output(full.values.begin(), full.values.end());

  const Gate gate(p, data, 4);
  EXPECT_EQ(gate.rows(), (std::vector<uint32_t>{0, 3, 6, 9}));
  EXPECT_TRUE(gate.check(output, 1e-5).ok);

  output[6 * 24 + 5] += 1.0f;  // a checked row
  const kernels::CheckResult bad = gate.check(output, 1e-5);
  EXPECT_FALSE(bad.ok);
  EXPECT_EQ(bad.worst, 6u * 24 + 5);
}

TEST(GateTest, SmallProblemsAreCheckedWhole) {
  const kernels::Problem p{kernels::Op("rms_norm"), 3, 16, 16, 0, false};
  const kernels::ProblemData data = kernels::make_random(p, 1);
  const Gate gate(p, data);
  EXPECT_EQ(gate.rows().size(), 3u);
  std::vector<float> nan(3 * 16, NAN);
  EXPECT_FALSE(gate.check(nan, 1e-5).ok);
}

}  // namespace
}  // namespace vktune::tuner
