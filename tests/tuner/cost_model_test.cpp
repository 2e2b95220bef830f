// The cost model on synthetic measurements whose law is known: it ranks a held-out problem's
// variants (the best predicted is near the true best), is deterministic, and declines an op it
// has seen too few problems of.
#include "tuner/cost_model.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "kernels/family.h"
#include "tuner/cost_features.h"
#include "tuner/records.h"

namespace vktune::tuner {
namespace {

// The law: gemv wins small M with wg=128, rows=2; tiled wins large M with wg=256 and 4x4 tiles.
double law(const kernels::Family& family, const kernels::Knobs& k, const kernels::Problem& p) {
  const double work = 1e-3 * p.n * static_cast<double>(p.k) * (1 + 0.05 * p.m);
  auto off = [&](const char* knob, double best) {
    return std::abs(std::log2(static_cast<double>(kernels::knob_int(k, knob))) - best);
  };
  if (&family == &*kernels::find_family("q4gsw_gemv")) {
    return work * (1 + 0.3 * off("wg", 7) + 0.2 * off("rows", 1)) * (p.m <= 4 ? 1 : 0.25 * p.m);
  }
  return work * (1.5 + 0.3 * off("wg", 8) + 0.2 * off("tm", 2) + 0.2 * off("tn", 2)) *
         (p.m <= 4 ? 2 : 1);
}

std::vector<Observation> observe(const std::vector<kernels::Problem>& problems) {
  std::vector<Observation> out;
  for (const kernels::Problem& p : problems) {
    for (const kernels::Family* f : {&*kernels::find_family("q4gsw_gemv"), &*kernels::find_family("q4gsw_tiled")}) {
      for (const kernels::Knobs& k : f->all_variants()) out.push_back({p, f, k, law(*f, k, p)});
    }
  }
  return out;
}

kernels::Problem linear(uint32_t m, uint32_t n, uint32_t k) {
  return {kernels::Op("q4gsw"), m, n, k, 32};
}

std::vector<kernels::Problem> training_problems() {
  std::vector<kernels::Problem> out;
  for (uint32_t m : {1u, 2u, 8u, 16u, 64u}) {
    for (uint32_t n : {1024u, 4096u}) out.push_back(linear(m, n, 2048));
  }
  return out;
}

const vk::DeviceInfo kDevice = feature_device(32);

TEST(CostModelTest, RanksAHeldOutProblemsVariants) {
  const std::vector<Observation> training = observe(training_problems());
  const CostModel model = CostModel::train(training, kDevice);
  ASSERT_TRUE(model.covers(kernels::Op("q4gsw")));
  EXPECT_EQ(model.problems(kernels::Op("q4gsw")), 10u);
  for (const kernels::Problem& hidden : {linear(1, 3072, 1024), linear(32, 2048, 4096)}) {
    const std::vector<Observation> truth = observe({hidden});
    const auto best = std::min_element(truth.begin(), truth.end(),
                                       [](auto& a, auto& b) { return a.median_ns < b.median_ns; });
    const auto picked = std::min_element(truth.begin(), truth.end(), [&](auto& a, auto& b) {
      return model.predict(*a.family, a.knobs, hidden) < model.predict(*b.family, b.knobs, hidden);
    });
    EXPECT_LE(picked->median_ns, best->median_ns * 1.05) << kernels::describe(hidden);
    EXPECT_EQ(picked->family, best->family) << kernels::describe(hidden);
  }
}

TEST(CostModelTest, SameDataSameModel) {
  const std::vector<Observation> training = observe(training_problems());
  const CostModel a = CostModel::train(training, kDevice);
  const CostModel b = CostModel::train(training, kDevice);
  for (const Observation& o : observe({linear(4, 2048, 2048)})) {
    EXPECT_EQ(a.predict(*o.family, o.knobs, o.problem), b.predict(*o.family, o.knobs, o.problem));
  }
}

TEST(CostModelTest, TooFewProblemsAreDeclined) {
  std::vector<kernels::Problem> few = training_problems();
  few.resize(kMinTrainingProblems - 1);
  const CostModel model = CostModel::train(observe(few), kDevice);
  EXPECT_FALSE(model.covers(kernels::Op("q4gsw")));
  EXPECT_EQ(model.problems(kernels::Op("q4gsw")), 0u);
  EXPECT_FALSE(model.covers(kernels::Op("rms_norm")));
}

kernels::Problem attention(uint32_t m, uint32_t length, uint32_t heads) {
  kernels::Problem p{kernels::Op("sdpa"), m, length, 128, 0, false};
  p.heads = heads;
  p.kv_heads = 8;
  return p;
}

// sdpa problems are featured by their head counts too (finite columns, nothing divided by zero
// heads), problems differing only in heads are distinct, and the model covers sdpa once it has
// seen enough of them; a stored problem reads back with its heads.
TEST(CostModelTest, SdpaProblemsAreFeaturedByTheirHeads) {
  const kernels::Family& fused = *kernels::find_family("sdpa_fused");
  const FeatureSpace space(kernels::families());
  std::vector<float> row;
  space.append(fused, fused.all_variants().front(), attention(1, 512, 32), kDevice, row);
  const auto& names = space.names();
  const size_t heads = std::find(names.begin(), names.end(), "log2_heads") - names.begin();
  ASSERT_LT(heads, names.size());
  EXPECT_EQ(row[heads], 5.0f);
  for (size_t i = heads; i < row.size(); ++i) EXPECT_TRUE(std::isfinite(row[i])) << names[i];

  std::vector<Observation> training;
  for (uint32_t length : {128u, 512u, 2048u}) {
    for (uint32_t h : {8u, 16u, 32u, 64u}) {
      const kernels::Problem p = attention(1, length, h);
      for (const kernels::Knobs& k : fused.all_variants()) {
        const double wg = static_cast<double>(kernels::knob_int(k, "wg"));
        training.push_back({p, &fused, k, 1e-3 * length * h * (1 + std::abs(std::log2(wg) - 6))});
      }
    }
  }
  EXPECT_EQ(count_problems(training, kernels::Op("sdpa")), 12u);
  const CostModel model = CostModel::train(training, kDevice);
  ASSERT_TRUE(model.covers(kernels::Op("sdpa")));
  const double predicted =
      model.predict(fused, fused.all_variants().front(), attention(1, 700, 24));
  EXPECT_TRUE(std::isfinite(predicted));

  const kernels::Problem p = attention(4, 512, 32);
  EXPECT_EQ(kernels::problem_of(problem_record(p)), p);
}

}  // namespace
}  // namespace vktune::tuner
