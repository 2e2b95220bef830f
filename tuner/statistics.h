// Summary statistics of timing samples: order statistics, and how tight the median is.
#pragma once

#include <cstdint>
#include <span>

namespace vktune::tuner {

struct SampleStats {
  uint32_t n = 0;
  double median = 0, min = 0, p10 = 0, p90 = 0;  // same unit as the samples
  // Half-width of a ~95% distribution-free confidence interval of the median (order
  // statistics n/2 -+ 0.98 sqrt(n)), relative to the median. 1 when n is too small to say.
  double median_ci = 1;
};

// Throws std::invalid_argument on no samples. Percentiles interpolate linearly.
SampleStats summarize(std::span<const double> samples);

}  // namespace vktune::tuner
