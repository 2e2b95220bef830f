// The cost model judged offline on a database where every legal variant of each problem was
// measured: problems are hidden a fold at a time, the model is trained on the rest, and the
// hidden problem's variants are ranked (how far down the first variant within 2% of the best
// lies) and searched (the model strategy's rounds replayed with the stored times).
#pragma once

#include <span>
#include <string>
#include <vector>

#include "kernels/device_info.h"
#include "tuner/cost_model.h"
#include "tuner/model_search.h"

namespace vktune::tuner {

// A variant within this much of the best counts as finding the best.
inline constexpr double kAgreement = 0.02;

struct HeldOut {
  kernels::Problem problem;
  size_t variants = 0;         // stored for it (all legal ones, on a fully swept database)
  size_t first_good_rank = 0;  // 1-based rank, in the model's order, of the first within 2%
  size_t search_measured = 0;  // variants the replayed model search measured
  double search_regret = 0;    // its best over the true best, less 1
};

// `folds` problems-disjoint folds (problem i in fold i % folds, problems in a fixed order; 0:
// one fold per problem, i.e. leave-one-problem-out). Problems of an op the model does not cover
// without them are skipped. Deterministic.
std::vector<HeldOut> cross_validate(std::span<const Observation> observations,
                                    const vk::DeviceInfo& device, size_t folds,
                                    const BoostOptions& boost = {},
                                    const ModelSearchOptions& search = {});

// The model trained once on `training` (another device's measurements, as `vktune tune
// --train-db` reads them on a device nobody tuned) and judged on every problem of `target` it
// covers, whether or not `training` holds that problem too. Deterministic.
std::vector<HeldOut> judge_transfer(std::span<const Observation> training,
                                    std::span<const Observation> target,
                                    const vk::DeviceInfo& device, const BoostOptions& boost = {},
                                    const ModelSearchOptions& search = {});

// The table docs/cost-model.md shows: for each top X% of the model's order, the problems whose
// top X% holds a variant within 2% of the best; then the replayed search's measured fraction
// and regret.
std::string render_cross_validation(const std::vector<HeldOut>& results);

}  // namespace vktune::tuner
