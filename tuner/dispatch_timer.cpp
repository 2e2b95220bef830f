// GPU-timestamped sampling of dispatches.
#include "tuner/dispatch_timer.h"

#include <algorithm>
#include <cmath>

#include "kernels/vk/command_buffer.h"
#include "kernels/vk/device.h"

namespace vktune::tuner {

DispatchTimer::DispatchTimer(vk::Device& device)
    : device_(device), pool_(vk::TimestampPool::create(device, 2)) {}

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
  last_busy_ = std::chrono::steady_clock::now();
  const auto ns = pool_.read_ns();
  return static_cast<double>(ns[1] - ns[0]) / dispatches;
}

void DispatchTimer::warm_up(const RecordDispatch& record, double ns,
                            const TimingOptions& options) {
  const double per_dispatch = std::max(sample(record, 1, options), 1.0);
  // In submissions of at most ~10 ms, so a slow kernel cannot run into the fence timeout.
  for (double left = ns - per_dispatch; left > 0;) {
    const double batch = std::min(left, 10e6);
    const double count = std::clamp(std::ceil(batch / per_dispatch), 1.0, 4096.0);
    sample(record, static_cast<uint32_t>(count), options);
    left -= count * per_dispatch;
  }
}

double DispatchTimer::warmup_due(const TimingOptions& options) const {
  const auto idle = std::chrono::steady_clock::now() - last_busy_;
  if (options.warmup_ns <= 0 || idle <= options.busy_window) return 0;
  const double idle_ns = std::chrono::duration<double, std::nano>(idle).count();
  return std::clamp(idle_ns, options.warmup_ns, std::max(options.warmup_ns, options.max_warmup_ns));
}

uint32_t DispatchTimer::calibrate(const RecordDispatch& record, const TimingOptions& options) {
  const double warm = warmup_due(options);
  for (uint32_t i = 0; i < options.warmup; ++i) sample(record, 1, options);
  // Grow until one sample is long enough; the first estimate usually gets there at once.
  uint32_t dispatches = 1;
  for (;;) {
    const double per_dispatch = std::max(sample(record, dispatches, options), 1.0);
    const double span = per_dispatch * dispatches;
    if (span >= options.min_sample_ns || dispatches >= options.max_dispatches) {
      if (warm > 0) warm_up(record, warm, options);
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
