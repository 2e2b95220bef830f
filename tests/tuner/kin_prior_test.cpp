// The prior of `tune --prior`: which variants a database of the device or its kin leaves worth
// measuring, from observations made up here (no GPU).
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "kernels/family.h"
#include "tuner/kin_prior.h"

namespace vktune::tuner {
namespace {

const kernels::Family& gemv() { return *kernels::find_family("q4gsw_gemv"); }
kernels::Problem linear(uint32_t n, kernels::DType dtype = kernels::DType::f32) {
  kernels::Problem p{kernels::Op("q4gsw"), 1, n, 4096, 32};
  p.dtype = dtype;
  return p;
}

TEST(KinPrior, KeepsWhatRanNearAProblemsBestAndWhatItNeverMeasured) {
  const std::vector<kernels::Knobs> variants = gemv().all_variants();
  ASSERT_GE(variants.size(), 4u);
  // On two problems: variant 0 best on the first, 1 within 4% of it, 2 at 1.5x; the last variant
  // best on the second, where variant 0 is 2x.
  const std::vector<kernels::Knobs> measured = {variants[0], variants[1], variants[2],
                                                variants.back()};
  const std::vector<Observation> seen = {
      {linear(4096), &gemv(), measured[0], 100}, {linear(4096), &gemv(), measured[1], 104},
      {linear(4096), &gemv(), measured[2], 150}, {linear(1024), &gemv(), measured[3], 10},
      {linear(1024), &gemv(), measured[0], 20}};
  const KinPrior prior(seen, 0.05);
  EXPECT_EQ(prior.near_best(), 3u);
  const kernels::Problem unseen_shape = linear(14336);
  EXPECT_TRUE(prior.keeps(unseen_shape, gemv(), measured[0]));
  EXPECT_TRUE(prior.keeps(unseen_shape, gemv(), measured[1]));
  EXPECT_TRUE(prior.keeps(unseen_shape, gemv(), measured[3]));
  EXPECT_FALSE(prior.keeps(unseen_shape, gemv(), measured[2]));
  // A family or a dtype it never measured: kept, nothing known against them.
  const kernels::Family& naive = *kernels::find_family("q4gsw_naive");
  EXPECT_TRUE(prior.keeps(unseen_shape, naive, naive.all_variants().front()));
  EXPECT_TRUE(prior.keeps(linear(4096, kernels::DType::f16), gemv(), measured[2]));
  // The other variants: kept exactly where one of their knob values is none of the measured ones.
  auto measured_value = [&](const kernels::Knob& knob) {
    return std::ranges::any_of(measured, [&](const kernels::Knobs& m) {
      return std::ranges::find(m, knob) != m.end();
    });
  };
  size_t left_out = 0;
  for (const kernels::Knobs& k : variants) {
    if (std::ranges::find(measured, k) != measured.end()) continue;
    const bool unseen_value = !std::ranges::all_of(k, measured_value);
    EXPECT_EQ(prior.keeps(unseen_shape, gemv(), k), unseen_value) << gemv().key(k);
    left_out += !unseen_value;
  }
  EXPECT_GT(left_out, 0u);
}

}  // namespace
}  // namespace vktune::tuner
