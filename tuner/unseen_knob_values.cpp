// SeenKnobValues: a set of "family knob=value" strings.
#include "tuner/unseen_knob_values.h"

#include <algorithm>
#include <map>
#include <stdexcept>

namespace vktune::tuner {
namespace {

std::string triple(const kernels::Family& family, const kernels::Knob& knob) {
  return family.name() + ' ' + knob.name + '=' + kernels::to_string(knob.value);
}

}  // namespace

void SeenKnobValues::add(const kernels::Family& family, const kernels::Knobs& knobs) {
  for (const kernels::Knob& k : knobs) seen_.insert(triple(family, k));
}

bool SeenKnobValues::holds_unseen(const kernels::Family& family,
                                  const kernels::Knobs& knobs) const {
  return std::ranges::any_of(
      knobs, [&](const kernels::Knob& k) { return !seen_.count(triple(family, k)); });
}

std::vector<size_t> SeenKnobValues::best_unseen(std::span<const KnobbedVariant> variants,
                                                std::span<const double> predicted) const {
  if (predicted.size() != variants.size()) {
    throw std::invalid_argument("SeenKnobValues: one prediction per variant");
  }
  std::map<std::string, size_t> best;  // unseen triple -> its best-ranked variant
  for (size_t i = 0; i < variants.size(); ++i) {
    for (const kernels::Knob& k : *variants[i].knobs) {
      std::string t = triple(*variants[i].family, k);
      if (seen_.count(t)) continue;
      auto [it, inserted] = best.emplace(std::move(t), i);
      if (!inserted && predicted[i] < predicted[it->second]) it->second = i;
    }
  }
  std::vector<size_t> picks;
  for (const auto& [value, i] : best) {
    if (std::find(picks.begin(), picks.end(), i) == picks.end()) picks.push_back(i);
  }
  return picks;
}

}  // namespace vktune::tuner
