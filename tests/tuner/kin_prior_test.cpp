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
kernels::Problem linear(uint32_t n) { return {kernels::Op("q4gsw"), 1, n, 4096, 32}; }
bool keeps(const KinPrior& prior, const kernels::Family& family, const kernels::Knobs& knobs) {
  return prior.keeps(family, knobs, family.key(knobs));
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
  EXPECT_TRUE(keeps(prior, gemv(), measured[0]));
  EXPECT_TRUE(keeps(prior, gemv(), measured[1]));
  EXPECT_TRUE(keeps(prior, gemv(), measured[3]));
  EXPECT_FALSE(keeps(prior, gemv(), measured[2]));
  // A family it never measured, the same knobs in fp16 among them: kept, nothing known against
  // them.
  const kernels::Family& naive = *kernels::find_family("q4gsw_naive");
  EXPECT_TRUE(keeps(prior, naive, naive.all_variants().front()));
  EXPECT_TRUE(keeps(prior, *kernels::find_family("q4gsw_gemv_f16"), measured[2]));
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
    EXPECT_EQ(keeps(prior, gemv(), k), unseen_value) << gemv().key(k);
    left_out += !unseen_value;
  }
  EXPECT_GT(left_out, 0u);
}

}  // namespace
}  // namespace vktune::tuner
