#include "tuner/kin_prior.h"

#include <algorithm>
#include <map>

namespace vktune::tuner {
namespace {

std::string kind(const kernels::Problem& p) {
  return std::string(kernels::op_name(p.op)) + " " + std::string(kernels::dtype_name(p.dtype));
}

std::string value_of(const std::string& prefix, const kernels::Knob& knob) {
  return prefix + " " + knob.name + "=" + kernels::to_string(knob.value);
}

}  // namespace

KinPrior::KinPrior(std::span<const Observation> observations, double within) {
  std::map<ProblemKey, double> best;
  for (const Observation& o : observations) {
    auto [it, inserted] = best.emplace(problem_key(o.problem), o.median_ns);
    if (!inserted) it->second = std::min(it->second, o.median_ns);
  }
  for (const Observation& o : observations) {
    const std::string family = kind(o.problem) + " " + o.family->name();
    families_.insert(family);
    for (const kernels::Knob& knob : o.knobs) values_.insert(value_of(family, knob));
    if (o.median_ns <= (1 + within) * best.at(problem_key(o.problem))) {
      near_.insert(kind(o.problem) + " " + o.family->key(o.knobs));
    }
  }
}

bool KinPrior::keeps(const kernels::Problem& problem, const kernels::Family& family,
                     const kernels::Knobs& knobs) const {
  const std::string name = kind(problem) + " " + family.name();
  if (!families_.count(name)) return true;
  if (std::ranges::any_of(knobs, [&](const kernels::Knob& k) {
        return !values_.count(value_of(name, k));
      })) {
    return true;
  }
  return near_.count(kind(problem) + " " + family.key(knobs)) > 0;
}

}  // namespace vktune::tuner
