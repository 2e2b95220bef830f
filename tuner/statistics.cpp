// Order statistics over timing samples.
#include "tuner/statistics.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

namespace vktune::tuner {
namespace {

double percentile(const std::vector<double>& sorted, double p) {
  const double position = p * static_cast<double>(sorted.size() - 1);
  const size_t below = static_cast<size_t>(std::floor(position));
  const size_t above = std::min(below + 1, sorted.size() - 1);
  const double t = position - static_cast<double>(below);
  return sorted[below] * (1 - t) + sorted[above] * t;
}

}  // namespace

SampleStats summarize(std::span<const double> samples) {
  if (samples.empty()) throw std::invalid_argument("no samples to summarize");
  std::vector<double> sorted(samples.begin(), samples.end());
  std::sort(sorted.begin(), sorted.end());
  SampleStats s;
  s.n = static_cast<uint32_t>(sorted.size());
  s.min = sorted.front();
  s.median = percentile(sorted, 0.5);
  s.p10 = percentile(sorted, 0.1);
  s.p90 = percentile(sorted, 0.9);
  // Ranks of the median's confidence interval (binomial(n, 1/2) normal approximation).
  const double n = static_cast<double>(sorted.size());
  const double spread = 0.98 * std::sqrt(n);
  const double lo = std::floor(n / 2 - spread), hi = std::ceil(n / 2 + spread);
  if (lo >= 0 && hi <= n - 1 && s.median > 0) {
    s.median_ci = (sorted[static_cast<size_t>(hi)] - sorted[static_cast<size_t>(lo)]) /
                  (2 * s.median);
  }
  return s;
}

}  // namespace vktune::tuner
