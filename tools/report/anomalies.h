// Winners a reader should not take on trust: times that break monotonicity in M (a smaller
// problem slower than a larger one of the same shape) and searches that never tried the
// variant winning at the neighbouring M.
#pragma once

#include <string>
#include <vector>

#include "tools/report/summary.h"

namespace vktune::report {

struct Anomaly {
  enum class Kind { slower_than_larger_m, neighbour_winner_untried };
  size_t problem = 0;  // index into DeviceSummary::problems
  Kind kind{};
  std::string text;  // one line for the page, e.g. "slower than M=512 (7.72 us)"
};

// A smaller M is flagged when a larger M of the same series (op, dtype, N, K, group size) has a
// winner faster by more than kMonotonicTolerance: more work cannot take less time unless one of
// the two measurements (or searches) is off. A neighbour's winner (the next smaller or larger M)
// counts as untried when it has no ok result here and the search here is cut or of unknown
// coverage: a complete search that skipped it found it illegal. Ordered by problem index.
inline constexpr double kMonotonicTolerance = 0.05;
std::vector<Anomaly> find_anomalies(const DeviceSummary& device);

}  // namespace vktune::report
