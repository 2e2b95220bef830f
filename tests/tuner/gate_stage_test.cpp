// The gate stage on the test device: a batch checked in one submission, each variant's outcome
// its own; with a clock probe the submission carries its clock (the slowdown halving's first
// stage trusts a gate dispatch by), without one it reads 0.
#include "tuner/gate_stage.h"

#include <gtest/gtest.h>

#include "kernels/family.h"
#include "kernels/vk/shader_compiler.h"
#include "tests/kernels/vulkan_fixture.h"
#include "tuner/clock_probe.h"

namespace vktune::tuner {
namespace {

class GateStageTest : public test::VulkanFixture {
 protected:
  ShaderCompiler compiler_;
  const kernels::Problem problem_{kernels::Op("q4gsw"), 3, 96, 256, 32, false};
  const kernels::ProblemData data_ = kernels::make_random(problem_, 5);
};

TEST_F(GateStageTest, ChecksEachVariantAndReadsTheClockWithAProbe) {
  const kernels::Family& naive = *kernels::find_family("q4gsw_naive");
  const auto inputs = kernels::ProblemBuffers::create(device(), problem_, data_,
                                                      naive.layout(naive.all_variants().front()), 3);
  std::vector<kernels::KernelInstance> instances;
  for (size_t i = 0; i < 2; ++i) {
    instances.push_back(kernels::KernelInstance::create(
        device(), compiler_, naive, naive.all_variants().front(), problem_, inputs));
  }
  const std::vector<const kernels::KernelInstance*> batch = {&instances[0], &instances[1]};
  const std::vector<double> tolerances(2, naive.tolerance(problem_));
  const Gate gate(problem_, data_);
  GateStage stage(device(), gate, problem_);
  ASSERT_GE(stage.capacity(), 2u);

  for (const GateOutcome& o : stage.run(batch, tolerances, std::chrono::seconds(10))) {
    EXPECT_TRUE(o.check.ok) << o.check.max_error;
    EXPECT_GT(o.dispatch_ns, 0);
    EXPECT_EQ(o.slowdown, 0);  // no probe: no reading
  }
  ClockProbe probe(device(), compiler_, 2e6);
  const std::vector<GateOutcome> read =
      stage.run(batch, tolerances, std::chrono::seconds(10), nullptr, &probe);
  ASSERT_EQ(read.size(), 2u);
  for (const GateOutcome& o : read) {
    EXPECT_TRUE(o.check.ok) << o.check.max_error;
    // One reading for the whole submission; a software device reads within its noise, either
    // side of the probe's best (taken over another number of dispatches).
    EXPECT_EQ(o.slowdown, read.front().slowdown);
    EXPECT_GT(o.slowdown, 0.2);
    EXPECT_LT(o.slowdown, 50.0);
  }
}

// An output of more checked values than a core compares at a time is checked in pieces: a
// variant run on another problem's inputs fails with the error, worst output and count of
// non-finite outputs that one check of its whole output gives.
TEST_F(GateStageTest, ALargeOutputCheckedInPiecesIsCheckedAsAWhole) {
  const kernels::Problem problem{kernels::Op("q4gsw"), 3, 120000, 64, 32, false};
  const kernels::Family& naive = *kernels::find_family("q4gsw_naive");
  const kernels::Knobs knobs = naive.all_variants().front();
  const auto other = kernels::ProblemBuffers::create(
      device(), problem, kernels::make_random(problem, 8), naive.layout(knobs), 1);
  const kernels::KernelInstance wrong =
      kernels::KernelInstance::create(device(), compiler_, naive, knobs, problem, other);
  const Gate gate(problem, kernels::make_random(problem, 7));
  ASSERT_GT(gate.picked_count(), 1u << 18);  // more than one piece
  GateStage stage(device(), gate, problem);
  const std::vector<const kernels::KernelInstance*> batch = {&wrong};
  const std::vector<double> tolerance = {naive.tolerance(problem)};

  const kernels::CheckResult piecewise =
      stage.run(batch, tolerance, std::chrono::seconds(60)).front().check;
  const kernels::CheckResult whole = gate.check(wrong.download_output(), tolerance.front());
  EXPECT_FALSE(piecewise.ok);
  EXPECT_EQ(piecewise.max_error, whole.max_error);
  EXPECT_EQ(piecewise.worst, whole.worst);
  EXPECT_EQ(piecewise.non_finite, whole.non_finite);
}

}  // namespace
}  // namespace vktune::tuner
