#include "tuner/kin_prior.h"

#include <algorithm>
#include <map>

namespace vktune::tuner {

KinPrior::KinPrior(std::span<const Observation> observations, double within) {
  std::map<ProblemKey, double> best;
  for (const Observation& o : observations) {
    auto [it, inserted] = best.emplace(problem_key(o.problem), o.median_ns);
    if (!inserted) it->second = std::min(it->second, o.median_ns);
  }
  for (const Observation& o : observations) {
    measured_.add(*o.family, o.knobs);
    if (o.median_ns <= (1 + within) * best.at(problem_key(o.problem))) {
      near_.insert(o.family->key(o.knobs));
    }
  }
}

bool KinPrior::keeps(const kernels::Family& family, const kernels::Knobs& knobs,
                     const std::string& key) const {
  return measured_.holds_unseen(family, knobs) || near_.count(key) > 0;
}

}  // namespace vktune::tuner
