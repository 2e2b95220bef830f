// SeenKnobValues on rms_norm's real variants (vec {1, 4} x wg {32 .. 512}) and naive's: the
// best-ranked variant of each value never seen, per family, each once.
#include "tuner/unseen_knob_values.h"

#include <gtest/gtest.h>

#include <set>
#include <stdexcept>
#include <string>

#include "kernels/family.h"
#include "kernels/knobs.h"

namespace vktune::tuner {
namespace {

TEST(SeenKnobValues, PicksTheBestRankedVariantOfEachUnseenValue) {
  const kernels::Family& rms = *kernels::find_family("rms_norm");
  const std::vector<kernels::Knobs> knobs = rms.all_variants();
  std::vector<KnobbedVariant> variants;
  std::vector<double> predicted;
  for (const kernels::Knobs& k : knobs) {
    variants.push_back({&rms, &k});
    // Wide workgroups and vec 1 ranked best: the picks below must follow the ranking.
    predicted.push_back(-static_cast<double>(kernels::knob_int(k, "wg")) +
                        static_cast<double>(kernels::knob_int(k, "vec")));
  }
  SeenKnobValues seen;
  // Nothing seen: one pick per value of each knob, the best-ranked holder of it (vec 1 and wg
  // 512 share one), each index once.
  std::vector<size_t> picks = seen.best_unseen(variants, predicted);
  std::set<std::string> keys;
  for (size_t i : picks) keys.insert(rms.key(knobs[i]));
  EXPECT_EQ(picks.size(), keys.size());
  EXPECT_TRUE(keys.count("rms_norm[vec=1,wg=512]"));
  EXPECT_TRUE(keys.count("rms_norm[vec=4,wg=512]"));  // vec 4's best
  EXPECT_TRUE(keys.count("rms_norm[vec=1,wg=32]"));   // wg 32's best

  // Everything but wg 512 seen (as if the catalogue had gained it since): its best only.
  for (const kernels::Knobs& k : knobs) {
    if (kernels::knob_int(k, "wg") != 512) seen.add(rms, k);
  }
  picks = seen.best_unseen(variants, predicted);
  ASSERT_EQ(picks.size(), 1u);
  EXPECT_EQ(rms.key(knobs[picks[0]]), "rms_norm[vec=1,wg=512]");

  // A value seen in another family does not count as seen in this one.
  const kernels::Family& naive = *kernels::find_family("q4gsw_naive");
  SeenKnobValues other;
  for (const kernels::Knobs& k : naive.all_variants()) other.add(naive, k);
  EXPECT_FALSE(other.best_unseen(variants, predicted).empty());

  for (const kernels::Knobs& k : knobs) seen.add(rms, k);
  EXPECT_TRUE(seen.best_unseen(variants, predicted).empty());
  EXPECT_THROW(seen.best_unseen(variants, std::vector<double>(1)), std::invalid_argument);
}

}  // namespace
}  // namespace vktune::tuner
