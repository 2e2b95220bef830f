#include "tuner/problem_budget.h"

namespace vktune::tuner {

size_t ProblemBudget::chunk(Clock::time_point now, size_t done, size_t most) const noexcept {
  const double measuring = std::chrono::duration<double>(now - measuring_since_ -
                                                         (setup_ - setup_before_)).count();
  if (done == 0 || measuring <= 0) return most;
  const double per_variant = measuring / static_cast<double>(done);
  const double left = std::chrono::duration<double>(end() - now).count();
  if (left <= per_variant) return 1;
  return static_cast<size_t>(std::min(left / per_variant, static_cast<double>(most)));
}

}  // namespace vktune::tuner
