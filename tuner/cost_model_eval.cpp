// Cross-validation of the cost model and a replay of the model search.
#include "tuner/cost_model_eval.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <numeric>

#include "tuner/knob_neighbours.h"

namespace vktune::tuner {
namespace {

HeldOut judge(const CostModel& model, const std::vector<const Observation*>& rows,
              const ModelSearchOptions& options) {
  HeldOut h;
  h.problem = rows.front()->problem;
  h.variants = rows.size();
  double best = INFINITY;
  for (const Observation* o : rows) best = std::min(best, o->median_ns);
  std::vector<double> predicted;
  std::vector<size_t> family;
  std::map<const kernels::Family*, size_t> family_index;
  for (const Observation* o : rows) {
    predicted.push_back(model.predict(*o->family, o->knobs, o->problem));
    family.push_back(family_index.emplace(o->family, family_index.size()).first->second);
  }
  std::vector<size_t> order(rows.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return predicted[a] < predicted[b]; });
  for (size_t r = 0; r < order.size(); ++r) {
    if (rows[order[r]]->median_ns <= best * (1 + kAgreement)) {
      h.first_good_rank = r + 1;
      break;
    }
  }
  std::vector<KnobbedVariant> knobbed;
  for (const Observation* o : rows) knobbed.push_back({o->family, &o->knobs});
  ModelSearch search(predicted, family, {}, options, one_knob_neighbours(knobbed));
  double found = INFINITY;
  for (std::vector<size_t> round = search.next(64); !round.empty(); round = search.next(64)) {
    for (size_t i : round) {
      search.measured(i, rows[i]->median_ns);
      found = std::min(found, rows[i]->median_ns);
      ++h.search_measured;
    }
  }
  h.search_regret = found / best - 1;
  return h;
}

std::map<ProblemKey, std::vector<const Observation*>> group_by_problem(
    std::span<const Observation> observations) {
  std::map<ProblemKey, std::vector<const Observation*>> grouped;
  for (const Observation& o : observations) grouped[problem_key(o.problem)].push_back(&o);
  return grouped;
}

}  // namespace

std::vector<HeldOut> cross_validate(std::span<const Observation> observations,
                                    const vk::DeviceInfo& device, size_t folds,
                                    const BoostOptions& boost, const ModelSearchOptions& search) {
  const auto by_problem = group_by_problem(observations);
  if (folds == 0 || folds > by_problem.size()) folds = by_problem.size();
  std::vector<HeldOut> results;
  for (size_t fold = 0; fold < folds; ++fold) {
    std::vector<Observation> training;
    std::vector<const std::vector<const Observation*>*> hidden;
    size_t index = 0;
    for (const auto& [key, rows] : by_problem) {
      if (index++ % folds == fold) {
        hidden.push_back(&rows);
      } else {
        for (const Observation* o : rows) training.push_back(*o);
      }
    }
    const CostModel model = CostModel::train(training, device, boost);
    for (const auto* rows : hidden) {
      if (model.covers(rows->front()->problem.op)) results.push_back(judge(model, *rows, search));
    }
  }
  return results;
}

std::vector<HeldOut> judge_transfer(std::span<const Observation> training,
                                    std::span<const Observation> target,
                                    const vk::DeviceInfo& device, const BoostOptions& boost,
                                    const ModelSearchOptions& search) {
  const CostModel model = CostModel::train(training, device, boost);
  std::vector<HeldOut> results;
  for (const auto& [key, rows] : group_by_problem(target)) {
    if (model.covers(rows.front()->problem.op)) results.push_back(judge(model, rows, search));
  }
  return results;
}

std::string render_cross_validation(const std::vector<HeldOut>& results) {
  std::string out;
  char line[400];
  const auto total = static_cast<double>(results.size());
  std::snprintf(line, sizeof line, "%zu problems held out\n\n", results.size());
  out += line;
  out += "model's top X% of the variants | problems holding one within 2% of the best\n";
  out += "------------------------------ | ----------------------------------------\n";
  for (double percent : {1.0, 2.0, 5.0, 10.0, 15.0, 20.0, 30.0}) {
    size_t hit = 0;
    for (const HeldOut& h : results) {
      const auto top = static_cast<size_t>(std::ceil(percent / 100 * h.variants));
      hit += h.first_good_rank != 0 && h.first_good_rank <= top;
    }
    std::snprintf(line, sizeof line, "%29.0f%% | %4zu (%.1f%%)\n", percent, hit,
                  total > 0 ? 100.0 * hit / total : 0.0);
    out += line;
  }
  std::vector<double> fraction, regret;
  size_t within = 0, measured = 0, variants = 0;
  for (const HeldOut& h : results) {
    measured += h.search_measured;
    variants += h.variants;
    fraction.push_back(static_cast<double>(h.search_measured) / h.variants);
    regret.push_back(h.search_regret);
    within += h.search_regret <= kAgreement;
  }
  std::sort(fraction.begin(), fraction.end());
  std::sort(regret.begin(), regret.end());
  if (!results.empty()) {
    std::snprintf(line, sizeof line,
                  "\nmodel search replayed on the stored times:\n"
                  "  measured %.1f%% of all variants (per problem: median %.1f%%, max %.1f%%)\n"
                  "  best within 2%% on %zu of %zu problems (%.1f%%), worst regret %.1f%%\n",
                  100.0 * measured / variants, 100 * fraction[fraction.size() / 2],
                  100 * fraction.back(), within, results.size(), 100.0 * within / total,
                  100 * regret.back());
    out += line;
  }
  return out;
}

}  // namespace vktune::tuner
