// The correctness gate: a variant's output against the double-precision CPU reference. For
// large M a spread of rows is checked (rows are independent, so a row is either right or
// wrong on its own), which keeps the reference of a 512 x 128256 x 4096 problem to seconds.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "kernels/families/reference.h"
#include "kernels/problem.h"

namespace vktune::tuner {

class Gate {
 public:
  // At most `max_rows` rows of `problem` are checked: all of them when M <= max_rows, else
  // the first, the last and an even spread between.
  Gate(const kernels::Problem& problem, const kernels::ProblemData& data, uint32_t max_rows = 32);

  // `output` is the variant's whole [M, N] result.
  kernels::CheckResult check(std::span<const float> output, double tolerance) const;
  // `picked` holds only the checked rows (rows()), back to back: what a read-back of those rows
  // alone brings. The worst output's index is still one of the whole [M, N] output.
  kernels::CheckResult check_rows(std::span<const float> picked, double tolerance) const;
  // check_rows() of the picked outputs [first, first + piece.size()) alone, so that one large
  // output's check runs on many cores; kernels::merge joins the pieces, in order.
  kernels::CheckResult check_piece(std::span<const float> piece, uint64_t first,
                                   double tolerance) const;
  // Outputs check_rows() takes: rows() times N.
  uint64_t picked_count() const noexcept { return rows_.size() * uint64_t{n_}; }
  const std::vector<uint32_t>& rows() const noexcept { return rows_; }

 private:
  uint32_t n_ = 0;
  std::vector<uint32_t> rows_;
  kernels::Reference reference_;  // of the checked rows only
};

}  // namespace vktune::tuner
