// The cost model on synthetic measurements whose law is known: it ranks a held-out problem's
// variants (the best predicted is near the true best), is deterministic, and declines an op it
// has seen too few problems of.
#include "tuner/cost_model.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "kernels/families/families.h"

namespace vktune::tuner {
namespace {

// The law: gemv wins small M with wg=128, rows=2; tiled wins large M with wg=256 and 4x4 tiles.
double law(const kernels::Family& family, const kernels::Knobs& k, const kernels::Problem& p) {
  const double work = 1e-3 * p.n * static_cast<double>(p.k) * (1 + 0.05 * p.m);
  auto off = [&](const char* knob, double best) {
    return std::abs(std::log2(static_cast<double>(kernels::knob_int(k, knob))) - best);
  };
  if (&family == &kernels::gemv_family(kernels::DType::f32)) {
    return work * (1 + 0.3 * off("wg", 7) + 0.2 * off("rows", 1)) * (p.m <= 4 ? 1 : 0.25 * p.m);
  }
  return work * (1.5 + 0.3 * off("wg", 8) + 0.2 * off("tm", 2) + 0.2 * off("tn", 2)) *
         (p.m <= 4 ? 2 : 1);
}

std::vector<Observation> observe(const std::vector<kernels::Problem>& problems) {
  std::vector<Observation> out;
  for (const kernels::Problem& p : problems) {
    for (const kernels::Family* f : {&kernels::gemv_family(kernels::DType::f32), &kernels::tiled_family(kernels::DType::f32)}) {
      for (const kernels::Knobs& k : f->all_variants()) out.push_back({p, f, k, law(*f, k, p)});
    }
  }
  return out;
}

kernels::Problem linear(uint32_t m, uint32_t n, uint32_t k) {
  return {kernels::Op::q4gsw, m, n, k, 32};
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
  ASSERT_TRUE(model.covers(kernels::Op::q4gsw));
  EXPECT_EQ(model.problems(kernels::Op::q4gsw), 10u);
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
  EXPECT_FALSE(model.covers(kernels::Op::q4gsw));
  EXPECT_EQ(model.problems(kernels::Op::q4gsw), 0u);
  EXPECT_FALSE(model.covers(kernels::Op::rms_norm));
}

}  // namespace
}  // namespace vktune::tuner
