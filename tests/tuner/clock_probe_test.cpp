// The clock probe compiles, runs under the validation layer and reads its slowdown against its
// own best time, in its own submissions or recorded into another's; it brings the clock up only
// within an allowance.
#include "tuner/clock_probe.h"

#include <gtest/gtest.h>

#include "kernels/vk/shader_compiler.h"
#include "kernels/vk/command_buffer.h"
#include "kernels/vk/device.h"
#include "kernels/vk/timestamp_pool.h"
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

// bring_up loads the GPU only while a reading is below the peak and its allowance lasts: none
// without an allowance (the tuner's warm-ups after a capped clock, run-layer's on a CPU device).
TEST_F(ClockProbeTest, BringUpSpendsNoLoadWithoutAnAllowance) {
  ShaderCompiler compiler;
  ClockProbe probe(device(), compiler, 2e6);
  EXPECT_EQ(probe.bring_up(0), 0.0);
}

TEST_F(ClockProbeTest, ReadsTheClockInsideAnotherSubmission) {
  ShaderCompiler compiler;
  ClockProbe probe(device(), compiler, 2e6);
  // Two readings in one submission, with timestamps of the caller's pool, as the batch timer
  // brackets its submissions; each reads a slowdown as slowdown() would, against the best.
  const vk::TimestampPool pool = vk::TimestampPool::create(device(), 4);
  device().run([&](vk::CommandBuffer& cb) {
    cb.reset_timestamps(pool);
    probe.record_reading(cb, pool, 0);
    probe.record_reading(cb, pool, 2);
  });
  const std::vector<uint64_t> ns = pool.read_ns();
  for (uint32_t slot : {0u, 2u}) {
    EXPECT_GT(ns[slot + 1], ns[slot]);
    const double slowdown = probe.slowdown_of(ns[slot], ns[slot + 1]);
    // A software device: the same work, within its noise. Lavapipe has run the reading's four
    // dispatches in 0.78 of the best single one's time (0.196, a CI run on 2026-11-27), so the
    // floor only tells a reading from a wrong slot or an unconverted tick count.
    EXPECT_GT(slowdown, 0.1);
    EXPECT_LT(slowdown, 50.0);
  }
  // The conversion itself: four dispatches a reading, against the best time of one.
  EXPECT_DOUBLE_EQ(probe.slowdown_of(0, static_cast<uint64_t>(8 * probe.best_ns())), 2.0);
  // A bracketed submission reads as the slower of its two readings.
  const std::vector<uint64_t> bracket = {7, 0, static_cast<uint64_t>(4 * probe.best_ns()), 0,
                                         static_cast<uint64_t>(12 * probe.best_ns())};
  EXPECT_DOUBLE_EQ(probe.bracket_slowdown(bracket, 1), 3.0);
}

}  // namespace
}  // namespace vktune::tuner
