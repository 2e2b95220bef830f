// Times a recorded dispatch on the GPU: warm-up, samples of back-to-back dispatches long
// enough to dwarf the timer's resolution, and sampling until the median is tight or the
// budget is spent (../shared/DESIGN.md "Measuring").
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
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
  // Then keep the GPU busy, untimed, as long as it idled, within [warmup_ns, max_warmup_ns]:
  // an idle GPU drops its clocks, and the longer it idled the longer they take to come back
  // (H100: after seconds of CPU-side set-up a 3 ms warm-up still read 2-5x slow; 30 ms did
  // not). Skipped when this timer's last sample ended less than `busy_window` ago, and when
  // warmup_ns is 0 (a CPU device has no clocks to ramp up).
  double warmup_ns = 3e6;
  double max_warmup_ns = 30e6;
  std::chrono::milliseconds busy_window{10};
  uint32_t min_samples = 5;
  uint32_t max_samples = 40;
  double target_ci = 0.01;  // stop once the median's relative CI half-width is below this
  std::chrono::duration<double> budget{0.25};  // wall time for one variant's samples
  std::chrono::nanoseconds timeout{std::chrono::seconds(10)};  // one submission
};

class DispatchTimer {
 public:
  explicit DispatchTimer(vk::Device& device);

  // Dispatches per sample so a sample spans options.min_sample_ns (also warms up).
  uint32_t calibrate(const RecordDispatch& record, const TimingOptions& options);
  // One sample: `dispatches` back-to-back dispatches with a barrier between each, as in a
  // graph of dependent kernels. Returns GPU nanoseconds per dispatch.
  double sample(const RecordDispatch& record, uint32_t dispatches,
                const TimingOptions& options);
  // Keeps the GPU busy with `record` for about `ns` of GPU time, untimed (clocks up).
  void warm_up(const RecordDispatch& record, double ns, const TimingOptions& options);
  // The warm-up calibrate() gives now, in GPU nanoseconds: 0 while the GPU is still busy
  // (see TimingOptions::warmup_ns).
  double warmup_due(const TimingOptions& options) const;
  // calibrate, then sample until the median is tight, max_samples or the budget.
  SampleStats measure(const RecordDispatch& record, const TimingOptions& options);

 private:
  vk::Device& device_;
  vk::TimestampPool pool_;
  // When the GPU last finished a sample: if that was moments ago its clocks are still up and
  // the warm-up can be skipped.
  std::chrono::steady_clock::time_point last_busy_{};
};

}  // namespace vktune::tuner
