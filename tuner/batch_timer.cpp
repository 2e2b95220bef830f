// BatchTimer: calibration round, then shuffled rounds until every variant is done.
#include "tuner/batch_timer.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>
#include <random>
#include <stdexcept>

#include "kernels/vk/command_buffer.h"
#include "kernels/vk/device.h"
#include "tuner/clock_probe.h"
#include "tuner/profile.h"

namespace vktune::tuner {
namespace {

constexpr uint32_t kPoolSize = 1024;     // timestamps: two an entry, two a clock reading
// A clock reading opens and one closes each submission.
constexpr uint32_t kMaxEntries = (kPoolSize - ClockProbe::kBracketSlots) / 2;
constexpr double kSubmissionNs = 100e6;  // estimated GPU time of one submission, at most
constexpr uint32_t kCalibrationDispatches = 2;
// A submission whose own clock readings show the SM clock under 1/1.3 of its peak ran on one of
// the plateaus the governor climbs through after an idle spell (H100: 345-1335 MHz against
// 1980): the warm-up can end before the clock is up (a light load does not raise it), and a
// halving stage keeps or drops variants on those samples. Such a submission is timed again,
// itself the load that raises the clock. A clock a little under the peak (a power limit under a
// long heavy load) is what the kernels get in use, so it stands.
constexpr double kLowClock = 1.3;
constexpr int kMaxReruns = 2;
// A warm-up that spends its whole allowance short of the peak met a capped clock (a power or
// thermal limit after minutes of load; on the H100 a sixth halving run in a row can spend 54 s
// warming up, one allowance before each gate batch and each timing). Load does not lift such a
// cap, so warm-ups are skipped for this long after one; the clock readings inside each
// submission still tell what the samples ran at.
constexpr std::chrono::seconds kCappedPause{10};

}  // namespace

BatchTimer::BatchTimer(vk::Device& device, ClockProbe* probe, Profile* profile)
    : device_(device),
      probe_(probe),
      profile_(profile),
      pool_(vk::TimestampPool::create(device, kPoolSize)) {}

void BatchTimer::warm_up(const TimingOptions& options) {
  if (probe_ == nullptr || options.max_warmup_ns <= 0) return;
  std::optional<StageTimer> timer;
  if (profile_ != nullptr) timer.emplace(*profile_, Stage::warmup);
  const auto now = std::chrono::steady_clock::now();
  if (now < capped_until_) return;
  // Only when the GPU has actually idled: a reading at the peak costs a few microseconds.
  if (probe_->bring_up(options.max_warmup_ns) >= options.max_warmup_ns) {
    capped_until_ = now + kCappedPause;
  }
}

std::vector<double> BatchTimer::run(std::span<const TimedVariant> variants,
                                    const std::vector<Entry>& entries,
                                    std::span<const double> estimate_ns,
                                    const TimingOptions& options) {
  std::vector<double> result(entries.size());
  for (size_t first = 0; first < entries.size();) {
    if (options.stop != nullptr && options.stop->load()) throw TimingStopped();
    size_t last = first;
    double planned = 0;
    while (last < entries.size() && last - first < kMaxEntries &&
           (last == first || planned < kSubmissionNs)) {
      planned += estimate_ns[entries[last].variant] * entries[last].dispatches;
      ++last;
    }
    // Entries take timestamps [0, readings), the clock readings the four after.
    const auto readings = static_cast<uint32_t>(2 * (last - first));
    std::vector<uint64_t> ns;
    for (int attempt = 0;; ++attempt) {
      device_.run(
          [&](vk::CommandBuffer& cb) {
            cb.reset_timestamps(pool_);
            if (probe_ != nullptr) probe_->record_reading(cb, pool_, readings);
            for (size_t i = first; i < last; ++i) {
              const Entry& e = entries[i];
              const TimedVariant& v = variants[e.variant];
              if (v.setup) {
                v.setup(cb);
                cb.barrier();
              }
              const auto slot = static_cast<uint32_t>(2 * (i - first));
              cb.timestamp(pool_, slot);
              for (uint32_t d = 0; d < e.dispatches; ++d) {
                v.dispatch(cb, next_dispatch_++);
                cb.barrier();
              }
              cb.timestamp(pool_, slot + 1);
            }
            if (probe_ != nullptr) probe_->record_reading(cb, pool_, readings + 2);
          },
          options.timeout);
      ns = pool_.read_ns(readings + (probe_ != nullptr ? ClockProbe::kBracketSlots : 0));
      if (probe_ == nullptr || attempt == kMaxReruns) break;
      if (probe_->bracket_slowdown(ns, readings) <= kLowClock) break;
      if (profile_ != nullptr) profile_->count_low_clock_rerun();
    }
    for (size_t i = first; i < last; ++i) {
      const uint64_t span = ns[2 * (i - first) + 1] - ns[2 * (i - first)];
      result[i] = std::max(1.0, static_cast<double>(span) / entries[i].dispatches);
    }
    first = last;
  }
  return result;
}

std::vector<SampleStats> BatchTimer::measure(std::span<const TimedVariant> variants,
                                             std::span<const double> estimate_ns,
                                             const TimingOptions& options) {
  const size_t n = variants.size();
  if (estimate_ns.size() != n) throw std::invalid_argument("BatchTimer: one estimate per variant");
  if (n == 0) return {};
  const auto start = std::chrono::steady_clock::now();
  warm_up(options);
  std::optional<StageTimer> timer;
  if (profile_ != nullptr) timer.emplace(*profile_, Stage::timing);

  // Calibration: two dispatches of each variant shorter than a sample, for the dispatch count
  // that fills one (a longer variant's sample is one dispatch whatever the estimate's error).
  std::vector<double> estimate(estimate_ns.begin(), estimate_ns.end());
  std::vector<Entry> entries;
  for (size_t v = 0; v < n; ++v) {
    if (estimate[v] < options.min_sample_ns) entries.push_back({v, kCalibrationDispatches});
  }
  const std::vector<double> calibrated = run(variants, entries, estimate, options);
  for (size_t i = 0; i < entries.size(); ++i) estimate[entries[i].variant] = calibrated[i];
  std::vector<uint32_t> dispatches(n);
  for (size_t v = 0; v < n; ++v) {
    const double wanted = std::ceil(options.min_sample_ns * 1.1 / estimate[v]);
    dispatches[v] = static_cast<uint32_t>(std::clamp<double>(wanted, 1, options.max_dispatches));
  }

  const auto budget = options.budget * static_cast<double>(n);
  std::vector<std::vector<double>> samples(n);
  std::vector<size_t> active(n);
  for (size_t v = 0; v < n; ++v) active[v] = v;
  while (!active.empty()) {
    std::mt19937_64 shuffle(rounds_++);
    std::shuffle(active.begin(), active.end(), shuffle);
    entries.clear();
    for (size_t v : active) entries.push_back({v, dispatches[v]});
    const std::vector<double> times = run(variants, entries, estimate, options);
    const bool over_budget = std::chrono::steady_clock::now() - start >= budget;
    std::vector<size_t> still;
    for (size_t i = 0; i < entries.size(); ++i) {
      std::vector<double>& s = samples[entries[i].variant];
      s.push_back(times[i]);
      const bool done = s.size() >= options.max_samples ||
                        (s.size() >= options.min_samples &&
                         (over_budget || summarize(s).median_ci <= options.target_ci));
      if (!done) still.push_back(entries[i].variant);
    }
    active = std::move(still);
  }
  std::vector<SampleStats> stats;
  stats.reserve(n);
  for (const auto& s : samples) stats.push_back(summarize(s));
  return stats;
}

}  // namespace vktune::tuner
