// The clock probe compiles, runs under the validation layer and reads its slowdown against its
// own best time.
#include "tuner/clock_probe.h"

#include <gtest/gtest.h>

#include "kernels/shader_compiler.h"
#include "tests/kernels/vulkan_fixture.h"

namespace vktune::tuner {
namespace {

class ClockProbeTest : public test::VulkanFixture {};

TEST_F(ClockProbeTest, SlowdownIsAgainstTheBestTimeSoFar) {
  ShaderCompiler compiler;
  ClockProbe probe(device(), compiler, 2e6);
  const double best = probe.best_ns();
  EXPECT_GT(best, 0);
  for (int i = 0; i < 3; ++i) {
    const double slowdown = probe.slowdown();
    EXPECT_GE(slowdown, 1.0);       // never faster than the best, which it updates
    EXPECT_LE(probe.best_ns(), best);
  }
}

}  // namespace
}  // namespace vktune::tuner
