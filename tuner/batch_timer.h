// The time stage: many variants timed in shared submissions. A round records one sample of every
// variant back to back in one command buffer, timestamps around each sample, so a problem's
// hundreds of variants cost a few submissions instead of several each, and the GPU stays busy
// (its clock up) from the first variant to the last. The order is shuffled anew each round, so
// no variant always runs first or after the same neighbour. Weight copies rotate across the
// whole submission, so a variant never reads the copy its predecessor just pulled into cache.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "kernels/vk/timestamp_pool.h"
#include "tuner/dispatch_timer.h"
#include "tuner/statistics.h"

namespace vktune::vk {
class Device;
}

namespace vktune::tuner {

class ClockProbe;
class Profile;

// One variant as the timer records it: `dispatch` for each timed dispatch and, when set, `setup`
// once before each of its samples, outside the timestamps (a split variant sharing its
// problem's workspace with others zeroes its counters there: KernelInstance::record_workspace_reset).
struct TimedVariant {
  RecordDispatch dispatch;
  std::function<void(vk::CommandBuffer&)> setup;
};

class BatchTimer {
 public:
  // `probe` (GPUs) and `profile`, when given, must outlive the timer.
  BatchTimer(vk::Device& device, ClockProbe* probe, Profile* profile);

  // One SampleStats per variant, in the order given. `estimate_ns` holds a rough time per
  // dispatch of each (its correctness-gate dispatch, an earlier stage's median): it plans the
  // submissions of the calibration round, which then sizes the samples. Each sample spans
  // options.min_sample_ns
  // (at most options.max_dispatches dispatches); a variant stops sampling once it has
  // min_samples and its median is tight (options.target_ci), at max_samples, or once the
  // batch has spent options.budget per variant. First brings the clock up if the GPU idled.
  // Throws vk::Error when a submission fails (the batch's results are then unknown).
  std::vector<SampleStats> measure(std::span<const TimedVariant> variants,
                                   std::span<const double> estimate_ns,
                                   const TimingOptions& options);

  // Brings the clock up when the GPU idled (a reading at the peak costs a few microseconds),
  // for at most options.max_warmup_ns; measure() starts with it. After a warm-up that spends
  // all of that short of the peak (a capped clock), none for the next few seconds.
  void warm_up(const TimingOptions& options);

 private:
  struct Entry {
    size_t variant;
    uint32_t dispatches;
  };
  // Records `entries` in as few submissions as the timestamp pool and ~100 ms of estimated GPU
  // time allow, each between two clock readings (GPUs) and timed again when they read a low
  // clock; returns each entry's GPU nanoseconds per dispatch.
  std::vector<double> run(std::span<const TimedVariant> variants,
                          const std::vector<Entry>& entries, std::span<const double> estimate_ns,
                          const TimingOptions& options);

  vk::Device& device_;
  ClockProbe* probe_;
  Profile* profile_;
  vk::TimestampPool pool_;
  uint32_t next_dispatch_ = 0;  // the rotation index passed to RecordDispatch
  uint64_t rounds_ = 0;         // seeds each round's shuffle
  std::chrono::steady_clock::time_point capped_until_;  // no warm-up before then
};

}  // namespace vktune::tuner
