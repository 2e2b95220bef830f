// Row-sampled reference and comparison.
#include "tuner/gate.h"

#include <algorithm>

#include "kernels/op.h"

namespace vktune::tuner {

Gate::Gate(const kernels::Problem& problem, const kernels::ProblemData& data, uint32_t max_rows)
    : n_(static_cast<uint32_t>(kernels::output_count(problem) / problem.m)) {
  const uint32_t m = problem.m;
  for (uint32_t i = 0; i < std::min(m, max_rows); ++i) {
    rows_.push_back(m <= max_rows ? i
                                  : static_cast<uint32_t>(uint64_t{i} * (m - 1) / (max_rows - 1)));
  }
  reference_ = kernels::reference(problem, data, rows_);
}

kernels::CheckResult Gate::check(std::span<const float> output, double tolerance) const {
  std::vector<float> picked(rows_.size() * uint64_t{n_});
  for (size_t r = 0; r < rows_.size(); ++r) {
    const uint64_t from = uint64_t{rows_[r]} * n_;
    if (from + n_ > output.size()) return {};  // too short: not ok
    std::copy_n(output.begin() + from, n_, picked.begin() + r * n_);
  }
  return check_rows(picked, tolerance);
}

kernels::CheckResult Gate::check_rows(std::span<const float> picked, double tolerance) const {
  if (picked.size() != picked_count()) return {};  // not ok
  return check_piece(picked, 0, tolerance);
}

kernels::CheckResult Gate::check_piece(std::span<const float> piece, uint64_t first,
                                       double tolerance) const {
  kernels::CheckResult result = kernels::check_piece(piece, reference_, tolerance, first);
  // Report the worst output's index in the whole [M, N] output.
  result.worst = uint64_t{rows_[result.worst / n_]} * n_ + result.worst % n_;
  return result;
}

}  // namespace vktune::tuner
