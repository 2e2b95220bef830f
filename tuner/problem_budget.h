// One problem's share of a run's --budget (Session gives each problem a share of what is left in
// proportion to the predicted cost of its variants, tuner/tuning_cost.h). The share pays for
// measuring variants.
// The problem's setup (its random data and fp64 reference, the weights uploaded in each layout
// with their cold-cache copies, and the pipelines compiled for its variants) is a cost of
// the problem, whatever it measures, so it moves the deadline instead of spending the share, and
// stays out of the pace that sizes the chunks. On the H100 an lm_head problem's setup takes about
// 1.7 s, more than a share sized by its variants' cost: spent from the share, it would leave such
// a problem only its first chunk. A budgeted run compiles as it measures, and the first problems
// compile the pipelines the later ones reuse: from their shares, the first two problems of the
// H200's attention side by side measured 327 and 692 of their 1,700 variants and the run ended
// after 68 s of its 180. Setup never moves the deadline past the run's end.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstddef>

namespace vktune::tuner {

class ProblemBudget {
 public:
  using Clock = std::chrono::steady_clock;

  // `run_end`: the whole run's deadline, which no setup moves the problem's past.
  ProblemBudget(Clock::time_point start, Clock::duration share, Clock::time_point run_end)
      : deadline_(start + share), run_end_(run_end) {}

  // Time spent on the problem's setup; the deadline moves by as much.
  void add_setup(Clock::duration d) noexcept { setup_ += d; }
  bool expired(Clock::time_point now) const noexcept { return now >= end(); }
  // Measuring begins: the pace counts from here, setup left out.
  void start_measuring(Clock::time_point now) noexcept {
    measuring_since_ = now;
    setup_before_ = setup_;
  }
  // The variants that fit the time left at the pace of the `done` measured so far, in
  // [1, most]; `most` until one is measured.
  size_t chunk(Clock::time_point now, size_t done, size_t most) const noexcept;

 private:
  // The deadline, setup added, within the run's.
  Clock::time_point end() const noexcept { return std::min(deadline_ + setup_, run_end_); }

  Clock::time_point deadline_, run_end_, measuring_since_;
  Clock::duration setup_{}, setup_before_{};
};

}  // namespace vktune::tuner
