// GPU-timestamped sampling of dispatches.
#include "tuner/dispatch_timer.h"

#include <algorithm>
#include <cmath>

#include "kernels/vk/command_buffer.h"
#include "kernels/vk/device.h"
#include "tuner/clock_probe.h"
#include "tuner/clock_ramp.h"

namespace vktune::tuner {

DispatchTimer::DispatchTimer(vk::Device& device, ClockProbe* probe)
    : device_(device), pool_(vk::TimestampPool::create(device, 2)), probe_(probe) {}

double DispatchTimer::sample(const RecordDispatch& record, uint32_t dispatches,
                             const TimingOptions& options) {
  device_.run(
      [&](vk::CommandBuffer& cb) {
        cb.reset_timestamps(pool_);
        cb.timestamp(pool_, 0);
        for (uint32_t i = 0; i < dispatches; ++i) {
          record(cb, i);
          cb.barrier();
        }
        cb.timestamp(pool_, 1);
      },
      options.timeout);
  const auto ns = pool_.read_ns();
  return static_cast<double>(ns[1] - ns[0]) / dispatches;
}

void DispatchTimer::settle(const RecordDispatch& record, double per_dispatch_ns,
                           const TimingOptions& options) {
  if (options.max_warmup_ns <= 0) return;
  // Batches of at most 4096 dispatches, so a slow kernel cannot run into the fence timeout.
  const double batch =
      std::clamp(std::ceil(options.warmup_batch_ns / std::max(per_dispatch_ns, 1.0)), 1.0, 4096.0);
  ClockRamp ramp;
  double spent = 0;
  while (spent < options.max_warmup_ns) {
    const double t = std::max(sample(record, static_cast<uint32_t>(batch), options), 1.0);
    spent += t * batch;
    if (ramp.add(t, probe_ != nullptr ? probe_->slowdown() : 1.0)) return;
  }
}

uint32_t DispatchTimer::calibrate(const RecordDispatch& record, const TimingOptions& options) {
  for (uint32_t i = 0; i < options.warmup; ++i) sample(record, 1, options);
  // Grow until one sample is long enough; the first estimate usually gets there at once.
  uint32_t dispatches = 1;
  for (;;) {
    const double per_dispatch = std::max(sample(record, dispatches, options), 1.0);
    const double span = per_dispatch * dispatches;
    if (span >= options.min_sample_ns || dispatches >= options.max_dispatches) {
      settle(record, per_dispatch, options);
      return dispatches;
    }
    const double wanted = std::ceil(options.min_sample_ns / per_dispatch * 1.1);
    dispatches = static_cast<uint32_t>(
        std::min<double>(options.max_dispatches, std::max<double>(wanted, dispatches * 2.0)));
  }
}

SampleStats DispatchTimer::measure(const RecordDispatch& record, const TimingOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  const uint32_t dispatches = calibrate(record, options);
  std::vector<double> samples;
  for (;;) {
    samples.push_back(sample(record, dispatches, options));
    if (samples.size() >= options.max_samples) break;
    if (samples.size() < options.min_samples) continue;
    if (summarize(samples).median_ci <= options.target_ci) break;
    if (std::chrono::steady_clock::now() - start >= options.budget) break;
  }
  return summarize(samples);
}

}  // namespace vktune::tuner
