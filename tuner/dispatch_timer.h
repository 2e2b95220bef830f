// Times a recorded dispatch on the GPU: warm-up, samples of back-to-back dispatches long
// enough to dwarf the timer's resolution, and sampling until the median is tight or the
// budget is spent (../shared/DESIGN.md "Measuring").
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <vector>

#include "kernels/vk/timestamp_pool.h"
#include "tuner/statistics.h"

namespace vktune::vk {
class CommandBuffer;
class Device;
}  // namespace vktune::vk

namespace vktune::tuner {

// Records dispatch number `index` of a sample; the callee rotates its weight copies by it.
using RecordDispatch = std::function<void(vk::CommandBuffer&, uint32_t index)>;

struct TimingOptions {
  double min_sample_ns = 200'000;  // one sample spans at least this much GPU time...
  uint32_t max_dispatches = 256;   // ...unless it would take more dispatches than this
  uint32_t warmup = 2;             // untimed submissions before the first sample
  // Then warm up until the clocks have come up (tuner/clock_ramp.h): batches of about
  // warmup_batch_ns until the time stops improving and the clock probe reads the peak, at
  // most max_warmup_ns of GPU time (the session calibrates the probe first, under a second of
  // steady load, so later warm-ups start from a GPU that has been busy).
  // max_warmup_ns = 0 skips it (a CPU device has no clocks to ramp up).
  double warmup_batch_ns = 2e6;
  double max_warmup_ns = 3e8;
  uint32_t min_samples = 5;
  uint32_t max_samples = 40;
  double target_ci = 0.01;  // stop once the median's relative CI half-width is below this
  std::chrono::duration<double> budget{0.25};  // wall time for one variant's samples
  std::chrono::nanoseconds timeout{std::chrono::seconds(10)};  // one submission
  // Read before every submission of a measurement: once it reads true the measurement throws
  // TimingStopped. A tuning run's stop (SIGINT) then waits for one submission, not for a whole
  // stage of a large problem's variants (19 s on the H100).
  const std::atomic<bool>* stop = nullptr;
};

// Thrown by a measurement that TimingOptions::stop stopped; nothing of it is kept.
class TimingStopped : public std::runtime_error {
 public:
  TimingStopped() : std::runtime_error("measurement stopped on request") {}
};

class ClockProbe;

class DispatchTimer {
 public:
  // `probe`, when given, must outlive the timer: settle() then also waits for the peak clock.
  explicit DispatchTimer(vk::Device& device, ClockProbe* probe = nullptr);

  // Dispatches per sample so a sample spans options.min_sample_ns; then settle()s.
  uint32_t calibrate(const RecordDispatch& record, const TimingOptions& options);
  // One sample: `dispatches` back-to-back dispatches with a barrier between each, as in a
  // graph of dependent kernels. Returns GPU nanoseconds per dispatch.
  double sample(const RecordDispatch& record, uint32_t dispatches,
                const TimingOptions& options);
  // Runs `record` (about `per_dispatch_ns` each) in batches until its time stops improving
  // and the clock probe, if any, reads the peak: the GPU's clocks are up.
  void settle(const RecordDispatch& record, double per_dispatch_ns, const TimingOptions& options);
  // calibrate, then sample until the median is tight, max_samples or the budget.
  SampleStats measure(const RecordDispatch& record, const TimingOptions& options);

 private:
  vk::Device& device_;
  vk::TimestampPool pool_;
  ClockProbe* probe_;
};

}  // namespace vktune::tuner
