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
  if (problem.op == kernels::Op::sdpa) {
    // A token's output depends on its cache position, which a sub-problem of fewer tokens
    // would move: the reference takes the sampled tokens where they are.
    reference_ = kernels::sdpa_reference(problem, data, rows_);
    return;
  }
  kernels::Problem sub = problem;
  sub.m = static_cast<uint32_t>(rows_.size());
  kernels::ProblemData sub_data = data;
  const uint32_t width = problem.op == kernels::Op::q4gsw ? problem.k : problem.n;
  sub_data.x.resize(uint64_t{sub.m} * width);
  for (size_t r = 0; r < rows_.size(); ++r) {
    std::copy_n(data.x.begin() + uint64_t{rows_[r]} * width, width,
                sub_data.x.begin() + uint64_t{r} * width);
  }
  reference_ = kernels::reference(sub, sub_data);
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
  if (picked.size() != rows_.size() * uint64_t{n_}) return {};  // not ok
  kernels::CheckResult result = kernels::check(picked, reference_, tolerance);
  // Report the worst output's index in the whole [M, N] output.
  result.worst = uint64_t{rows_[result.worst / n_]} * n_ + result.worst % n_;
  return result;
}

}  // namespace vktune::tuner
