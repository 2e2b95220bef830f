// one_knob_neighbours on a family's real variants: exactly one knob apart, never across families.
#include "tuner/knob_neighbours.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "kernels/family.h"

namespace vktune::tuner {
namespace {

TEST(KnobNeighbours, ExactlyOneKnobApartWithinAFamily) {
  const kernels::Family& rms = *kernels::find_family("rms_norm");
  const kernels::Family& naive = *kernels::find_family("q4gsw_naive");
  std::vector<kernels::Knobs> knobs = rms.all_variants();  // vec {1, 4} x wg {32 .. 512}
  const size_t rms_count = knobs.size();
  for (const kernels::Knobs& k : naive.all_variants()) knobs.push_back(k);
  std::vector<KnobbedVariant> variants;
  for (size_t i = 0; i < knobs.size(); ++i) {
    variants.push_back({i < rms_count ? &rms : &naive, &knobs[i]});
  }
  const std::vector<std::vector<size_t>> n = one_knob_neighbours(variants);
  ASSERT_EQ(n.size(), knobs.size());
  for (size_t i = 0; i < rms_count; ++i) {
    // The other vec with the same wg, and the other 4 wg with the same vec.
    EXPECT_EQ(n[i].size(), 1u + 4u) << rms.key(knobs[i]);
    for (size_t j : n[i]) {
      ASSERT_LT(j, rms_count) << "a neighbour from another family";
      size_t differ = 0;
      for (size_t k = 0; k < knobs[i].size(); ++k) differ += !(knobs[i][k] == knobs[j][k]);
      EXPECT_EQ(differ, 1u);
      EXPECT_NE(std::find(n[j].begin(), n[j].end(), i), n[j].end()) << "not symmetric";
    }
  }
}

}  // namespace
}  // namespace vktune::tuner
