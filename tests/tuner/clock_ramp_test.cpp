// The warm-up's stopping rule: it waits out a ramp and stops on a plateau, noisy or not, but
// only on the plateau of the peak clock.
#include "tuner/clock_ramp.h"

#include <gtest/gtest.h>

namespace vktune::tuner {
namespace {

// Batches until `ramp` says settled, or -1.
int settles_after(ClockRamp ramp, std::initializer_list<double> times) {
  int batch = 0;
  for (double t : times) {
    ++batch;
    if (ramp.add(t)) return batch;
  }
  return -1;
}

TEST(ClockRamp, WaitsWhileTheTimeKeepsFalling) {
  // The H100's SM clock from 345 to 1980 MHz: a kernel 5.7x faster at the end.
  EXPECT_EQ(settles_after(ClockRamp(3, 0.01), {570, 480, 400, 330, 250, 180, 120, 100, 100, 100,
                                               100}),
            11);
  EXPECT_EQ(settles_after(ClockRamp(3, 0.01), {570, 480, 400, 330, 250}), -1);
}

TEST(ClockRamp, SettlesOnAPlateauEvenWhenNoisy) {
  EXPECT_EQ(settles_after(ClockRamp(3, 0.01), {100, 100, 100, 100}), 4);
  // Within the tolerance of the best, or slower: flat.
  EXPECT_EQ(settles_after(ClockRamp(3, 0.01), {100, 103, 99.5, 101}), 4);
  // A real improvement restarts the count.
  EXPECT_EQ(settles_after(ClockRamp(2, 0.01), {100, 100, 90, 91, 90}), 5);
  ClockRamp ramp(2, 0.01);
  ramp.add(100);
  ramp.add(90);
  EXPECT_EQ(ramp.best(), 90);
}

TEST(ClockRamp, AFlatPlateauBelowThePeakClockIsNotSettled) {
  // The kernel's time is flat on one of the governor's intermediate steps; the probe reads
  // 1.5x its peak time, so the warm-up goes on until the probe reaches the peak.
  ClockRamp ramp(3, 0.01, 0.03);
  EXPECT_FALSE(ramp.add(300, 1.5));
  EXPECT_FALSE(ramp.add(300, 1.5));
  EXPECT_FALSE(ramp.add(300, 1.5));
  EXPECT_FALSE(ramp.add(300, 1.5));  // flat for 3 batches, but below the peak clock
  EXPECT_FALSE(ramp.add(200, 1.02));  // faster: the flat count starts again
  EXPECT_FALSE(ramp.add(200, 1.02));
  EXPECT_FALSE(ramp.add(200, 1.01));
  EXPECT_TRUE(ramp.add(200, 1.0));
}

}  // namespace
}  // namespace vktune::tuner
