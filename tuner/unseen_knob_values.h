// Knob values the cost model has never seen measured. A variant holding one (a value the
// catalogue gained after the training database was tuned, say gemv_fast's wg 1024) is predicted
// from its other knobs alone, so a search led by the model may never try it however fast it is:
// on the H100 such a variant won M=1 N=4096 K=14336 by 10% and the model search, trained on a
// database without it, missed it. The model search therefore measures, in its first round, the
// best-ranked variant holding each value nothing it learnt from holds.
#pragma once

#include <cstddef>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "tuner/knob_neighbours.h"

namespace vktune::tuner {

class SeenKnobValues {
 public:
  // The variant's (family, knob, value) triples are now seen.
  void add(const kernels::Family& family, const kernels::Knobs& knobs);
  // Whether one of the variant's triples is not seen (all are, of a family never added).
  bool holds_unseen(const kernels::Family& family, const kernels::Knobs& knobs) const;
  // For each (family, knob, value) of `variants` not seen, the index of the variant with the
  // lowest `predicted` among those holding it; each index once, in the order of the values.
  std::vector<size_t> best_unseen(std::span<const KnobbedVariant> variants,
                                  std::span<const double> predicted) const;

 private:
  std::set<std::string> seen_;  // "family knob=value"
};

}  // namespace vktune::tuner
