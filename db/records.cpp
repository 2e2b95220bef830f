// Status names as stored in the measurements.status column (and checked by its CHECK), and the
// rules a measurement's timings keep.
#include "db/records.h"

#include <array>
#include <cmath>
#include <utility>

namespace vktune::db {
namespace {
constexpr std::array<std::string_view, 6> kStatusNames = {
    "ok", "wrong_result", "compile_error", "unsupported", "timeout", "device_lost"};
}

std::string_view to_string(Status status) noexcept {
  return kStatusNames[static_cast<size_t>(status)];
}

std::optional<Status> parse_status(std::string_view name) noexcept {
  for (size_t i = 0; i < kStatusNames.size(); ++i) {
    if (kStatusNames[i] == name) return static_cast<Status>(i);
  }
  return std::nullopt;
}

TimingError timing_error(const Measurement& m) {
  // In the order the quantiles must rise.
  const std::pair<const char*, std::optional<double>> timings[] = {
      {"min_ns", m.min_ns}, {"p10_ns", m.p10_ns}, {"median_ns", m.median_ns}, {"p90_ns", m.p90_ns}};
  const std::pair<const char*, std::optional<double>>* below = nullptr;  // the last one present
  for (const auto& timing : timings) {
    const auto& [column, value] = timing;
    if (!value) continue;
    if (!std::isfinite(*value) || *value < 0) {
      return {column, std::to_string(*value) + " is not a time: timings are finite and >= 0 ns"};
    }
    // Interpolated quantiles of equal samples may differ from each other in the last bits
    // (p10 one ulp above the median in the H100 database): only a real inversion counts.
    constexpr double kRounding = 1e-9;
    if (below != nullptr && *value < *below->second * (1 - kRounding)) {
      return {column, std::to_string(*value) + " is below " + below->first + " " +
                          std::to_string(*below->second) +
                          "; quantiles rise: min_ns <= p10_ns <= median_ns <= p90_ns"};
    }
    below = &timing;
  }
  return {};
}

std::unordered_set<int64_t> answer_kernels(const std::vector<BestRow>& winners,
                                           const std::vector<BestRow>& ranked) {
  std::unordered_set<int64_t> out;
  for (const auto& w : winners) out.insert(w.kernel_id);
  const std::vector<size_t> places = places_in_lists(ranked);
  for (size_t i = 0; i < ranked.size(); ++i) {
    if (places[i] < kRankedPickable) out.insert(ranked[i].kernel_id);
  }
  return out;
}

std::vector<size_t> places_in_lists(const std::vector<BestRow>& ranked) {
  std::vector<size_t> out(ranked.size());
  for (size_t i = 1; i < ranked.size(); ++i) {
    const bool same_list = ranked[i].device_id == ranked[i - 1].device_id &&
                           ranked[i].problem_id == ranked[i - 1].problem_id;
    out[i] = same_list ? out[i - 1] + 1 : 0;
  }
  return out;
}

}  // namespace vktune::db
