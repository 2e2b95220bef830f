// The cost model: per device, learnt from stored measurements, it predicts how far a variant is
// from the fastest variant of a problem (log of the time ratio), so the variants of a problem
// nobody measured can be ranked before one is timed. One set of boosted trees
// (tuner/regression_trees.h) per op over tuner/cost_features.h. Only the order within one
// problem is meant: the target is relative to the problem's best, clipped where a variant is so
// slow that how slow no longer matters.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "db/store.h"
#include "kernels/family.h"
#include "kernels/problem.h"
#include "kernels/device_info.h"
#include "tuner/cost_features.h"
#include "tuner/regression_trees.h"

namespace vktune::tuner {

// One timed variant of one problem.
struct Observation {
  kernels::Problem problem;
  const kernels::Family* family = nullptr;
  kernels::Knobs knobs;
  double median_ns = 0;
};

// The ok measurements with a median in `store` on the devices named `device_name` (every device
// when empty), one per (device, problem, kernel): the one with the most samples (halving's last
// stage it reached). Kernels of families this build does not know are skipped.
std::vector<Observation> read_observations(const db::Store& store, std::string_view device_name);

// What tells problems apart, ordered (for maps of observations by problem).
// (op, dtype, m, n, k, group_size, has_bias, heads, kv_heads)
using ProblemKey = std::tuple<kernels::Op, kernels::DType, uint32_t, uint32_t, uint32_t, uint32_t,
                              bool, uint32_t, uint32_t>;
ProblemKey problem_key(const kernels::Problem& problem);

// Distinct problems of `op` in `observations`.
size_t count_problems(std::span<const Observation> observations, kernels::Op op);

// Fewer problems of an op than this and the model does not rank the op's variants: a few shapes
// say little about the next one (the search then sweeps instead, and learns from the sweep).
inline constexpr size_t kMinTrainingProblems = 4;
// Targets are clipped here (log of 3x the problem's best): the search only needs to know that such
// a variant is far off.
inline constexpr double kTargetClip = 1.0986;

class CostModel {
 public:
  // Learns from `observations` (every problem's own best is its reference), with features for
  // `device`. Deterministic for the options' seed. An op with fewer than kMinTrainingProblems
  // problems is left out (covers() says so).
  static CostModel train(std::span<const Observation> observations, const vk::DeviceInfo& device,
                         const BoostOptions& options = {});

  // Whether the model ranks `op`'s variants.
  bool covers(kernels::Op op) const { return trees_.count(op) > 0; }
  // Problems of `op` it learnt from (0 when it does not cover the op).
  size_t problems(kernels::Op op) const;
  // Predicted log(time / the problem's fastest time); smaller is faster. The op must be covered.
  double predict(const kernels::Family& family, const kernels::Knobs& knobs,
                 const kernels::Problem& problem) const;

 private:
  explicit CostModel(const vk::DeviceInfo& device);
  vk::DeviceInfo device_;
  std::shared_ptr<const FeatureSpace> space_;
  std::map<kernels::Op, RegressionTrees> trees_;
  std::map<kernels::Op, size_t> problems_;
};

}  // namespace vktune::tuner
