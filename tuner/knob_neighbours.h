// Variants one knob apart: the local moves of the model search once the model itself expects
// nothing more (a shape far from what it was trained on is where its ranking errs, and the best
// variant's neighbours are where a better one most often sits).
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "kernels/family.h"

namespace vktune::tuner {

struct KnobbedVariant {
  const kernels::Family* family;
  const kernels::Knobs* knobs;
};

// For each variant, the indices of the variants of its family whose knobs differ in exactly one
// value (knobs of one family list the same names in the same order).
std::vector<std::vector<size_t>> one_knob_neighbours(std::span<const KnobbedVariant> variants);

}  // namespace vktune::tuner
