// When a warm-up has brought the GPU's clocks up. NVIDIA's governor raises them over hundreds
// of milliseconds of load and drops them as soon as the load thins out: on the H100 the SM clock
// sat at 345 MHz while a tuning run kept the GPU 20-50% busy and reached 1980 MHz only under
// steady load, so a kernel timed after a fixed short warm-up read 2-5x slow. The warm-up
// therefore runs the kernel in short batches until its time stops improving and a clock probe
// (tuner/clock_probe.h) reads the peak clock.
#pragma once

#include <cstdint>

namespace vktune::tuner {

class ClockRamp {
 public:
  // Settled once `settle_batches` batches in a row are no more than `tolerance` (relative)
  // faster than the best batch before them, and the clock probe (when there is one) reads
  // within `clock_tolerance` of the peak.
  explicit ClockRamp(uint32_t settle_batches = 3, double tolerance = 0.01,
                     double clock_tolerance = 0.05)
      : settle_batches_(settle_batches),
        tolerance_(tolerance),
        clock_tolerance_(clock_tolerance) {}

  // Adds one batch's time per dispatch and the probe's slowdown taken beside it (1 without a
  // probe: tuner/clock_probe.h); returns whether the clocks have settled.
  bool add(double per_dispatch_ns, double probe_slowdown = 1.0);
  double best() const noexcept { return best_; }

 private:
  uint32_t settle_batches_;
  double tolerance_;
  double clock_tolerance_;
  bool started_ = false;
  double best_ = 0;
  uint32_t flat_ = 0;
};

}  // namespace vktune::tuner
