// What a database of the device or its kin says is worth measuring (`tune --prior X` with
// --train-db): a variant stays a candidate where it ran within X of the best on some problem of
// its op and dtype there, or where that database never measured its family, or one of its knob
// values, for that op and dtype (a family or value the catalogue gained since, or one its
// compiler lacked); the baselines stay whatever it says (the session keeps them). Everything else
// the run leaves unmeasured, so its pipelines are never made: on a new device a cold run is
// bound by compiling them. Replayed on the shipped databases (bench/replay_prior.py: the H100's
// as the prior, each H200 problem swept whole as the truth, the H100's problems of its shape left
// out), X = 5% kept a median 8.1% of a problem's variants and lost nothing on any of 135.
#pragma once

#include <set>
#include <span>
#include <string>

#include "kernels/family.h"
#include "tuner/cost_model.h"
#include "tuner/unseen_knob_values.h"

namespace vktune::tuner {

class KinPrior {
 public:
  // From `observations` (one device's: tuner/cost_model.h read_observations) and the fraction
  // `within` (0.05: within 5% of a problem's best).
  KinPrior(std::span<const Observation> observations, double within);

  // Whether `family`'s variant `knobs`, whose key is `key`, stays a candidate. A family serves
  // one op and dtype, so its name and knobs say what the database knows of them.
  bool keeps(const kernels::Family& family, const kernels::Knobs& knobs,
             const std::string& key) const;
  // Variants near some problem's best, over every op and dtype.
  size_t near_best() const noexcept { return near_.size(); }

 private:
  std::set<std::string> near_;  // variant keys
  SeenKnobValues measured_;     // the knob values of every variant measured there
};

}  // namespace vktune::tuner
