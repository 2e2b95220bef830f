// one_knob_neighbours: pairwise within each family; a family has at most a few thousand
// variants, so the quadratic pass takes milliseconds.
#include "tuner/knob_neighbours.h"

#include <map>

namespace vktune::tuner {

std::vector<std::vector<size_t>> one_knob_neighbours(std::span<const KnobbedVariant> variants) {
  std::map<const kernels::Family*, std::vector<size_t>> by_family;
  for (size_t i = 0; i < variants.size(); ++i) by_family[variants[i].family].push_back(i);
  std::vector<std::vector<size_t>> out(variants.size());
  for (const auto& [family, members] : by_family) {
    for (size_t a = 0; a < members.size(); ++a) {
      const kernels::Knobs& ka = *variants[members[a]].knobs;
      for (size_t b = a + 1; b < members.size(); ++b) {
        const kernels::Knobs& kb = *variants[members[b]].knobs;
        if (ka.size() != kb.size()) continue;
        size_t differ = 0;
        for (size_t k = 0; k < ka.size() && differ < 2; ++k) differ += !(ka[k] == kb[k]);
        if (differ == 1) {
          out[members[a]].push_back(members[b]);
          out[members[b]].push_back(members[a]);
        }
      }
    }
  }
  return out;
}

}  // namespace vktune::tuner
