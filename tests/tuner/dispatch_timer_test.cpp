// The warm-up the timer gives before a variant's samples follows how long the GPU idled.
#include "tuner/dispatch_timer.h"

#include <gtest/gtest.h>

#include <thread>

#include "kernels/vk/command_buffer.h"
#include "tests/kernels/vulkan_fixture.h"

namespace vktune::tuner {
namespace {

class DispatchTimerTest : public test::VulkanFixture {
 protected:
  // Nothing to dispatch: a sample of only timestamps is enough to mark the GPU busy.
  static void nothing(vk::CommandBuffer&, uint32_t) {}
};

TEST_F(DispatchTimerTest, WarmUpGrowsWithIdleTimeWithinItsBounds) {
  DispatchTimer timer(device());
  TimingOptions options;
  options.warmup_ns = 3e6;
  options.max_warmup_ns = 30e6;
  options.busy_window = std::chrono::milliseconds(20);
  // Never sampled: idle since forever, the longest warm-up.
  EXPECT_DOUBLE_EQ(timer.warmup_due(options), 30e6);

  timer.sample(nothing, 1, options);
  options.busy_window = std::chrono::hours(1);  // still busy however slow this machine is
  EXPECT_EQ(timer.warmup_due(options), 0.0);

  options.busy_window = std::chrono::milliseconds(20);
  options.max_warmup_ns = 1e12;
  timer.sample(nothing, 1, options);
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  const double due = timer.warmup_due(options);
  EXPECT_GE(due, 50e6);   // at least as long as it idled...
  EXPECT_LT(due, 600e9);  // ...which was not forever

  options.warmup_ns = 0;  // a CPU device: no warm-up at all
  EXPECT_EQ(timer.warmup_due(options), 0.0);
}

}  // namespace
}  // namespace vktune::tuner
