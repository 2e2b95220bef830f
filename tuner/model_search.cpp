// Rounds of the model strategy: the first from the predictions, each later one from the
// predictions refitted to the problem's own timings.
#include "tuner/model_search.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <random>

#include "tuner/cost_model.h"

namespace vktune::tuner {
namespace {

double quantile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[static_cast<size_t>(q * static_cast<double>(v.size() - 1) + 0.5)];
}

}  // namespace

ModelSearch::ModelSearch(std::vector<double> predicted, std::vector<size_t> family,
                         const std::vector<size_t>& first, const ModelSearchOptions& options,
                         std::vector<std::vector<size_t>> neighbours)
    : predicted_(std::move(predicted)),
      family_(std::move(family)),
      neighbours_(std::move(neighbours)),
      options_(options),
      taken_(predicted_.size(), false),
      log_ns_(predicted_.size()) {
  const size_t n = predicted_.size();
  cap_ = std::min(n, std::max(options_.first_minimum,
                              static_cast<size_t>(std::ceil(options_.max_fraction * n))));
  auto take = [&](size_t i) {
    if (i >= n || taken_[i]) return;
    taken_[i] = true;
    queue_.push_back(i);
  };
  for (size_t i : first) take(i);
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return predicted_[a] < predicted_[b]; });
  const size_t by_model =
      std::max(options_.first_minimum, static_cast<size_t>(std::ceil(options_.first_fraction * n)));
  for (size_t i = 0; i < order.size() && i < by_model; ++i) take(order[i]);
  // Exploration: a few of each family's variants not taken yet, drawn with the run's seed.
  std::map<size_t, std::vector<size_t>> rest;
  for (size_t i = 0; i < n; ++i) {
    if (!taken_[i]) rest[family_[i]].push_back(i);
  }
  std::mt19937_64 rng(options_.seed);
  for (auto& [f, members] : rest) {
    for (size_t j = 0; j < options_.explore_per_family && j < members.size(); ++j) {
      std::swap(members[j], members[j + rng() % (members.size() - j)]);
      take(members[j]);
    }
  }
}

void ModelSearch::measured(size_t i, std::optional<double> ns) {
  if (i >= log_ns_.size()) return;
  taken_[i] = true;  // measured before it was handed out (a resumed run's): not again
  if (ns && *ns > 0) log_ns_[i] = std::log(*ns);
}

std::vector<size_t> ModelSearch::next(size_t max) {
  if (queued_at_ >= queue_.size()) plan_round();
  std::vector<size_t> out;
  while (out.size() < max && queued_at_ < queue_.size() && handed_out_ < cap_) {
    out.push_back(queue_[queued_at_++]);
    ++handed_out_;
  }
  if (out.empty() && stop_reason_.empty()) {
    stop_reason_ = "measured the cap of " + std::to_string(cap_) + " variants";
  }
  return out;
}

void ModelSearch::plan_round() {
  queue_.clear();
  queued_at_ = 0;
  if (!stop_reason_.empty()) return;
  double best = INFINITY;
  size_t best_index = log_ns_.size();
  for (size_t i = 0; i < log_ns_.size(); ++i) {
    if (log_ns_[i] && *log_ns_[i] < best) best = *log_ns_[i], best_index = i;
  }
  // The problem's offset and each family's correction, from the variants measured within the
  // range the model was trained on (beyond it the targets were clipped).
  std::vector<size_t> fit;
  for (size_t i = 0; i < log_ns_.size(); ++i) {
    if (log_ns_[i] && *log_ns_[i] - best < kTargetClip) fit.push_back(i);
  }
  std::vector<double> offsets;
  for (size_t i : fit) offsets.push_back(*log_ns_[i] - predicted_[i]);
  const double offset = quantile(offsets, 0.5);
  std::map<size_t, std::vector<double>> by_family;
  for (size_t i : fit) by_family[family_[i]].push_back(*log_ns_[i] - offset - predicted_[i]);
  // Unshrunk: a family the model misjudges is usually misjudged as a whole (one knob it has
  // not seen work on this shape), and a wrong correction costs measurements, not the answer.
  std::map<size_t, double> correction;
  for (const auto& [f, residuals] : by_family) correction[f] = quantile(residuals, 0.5);
  auto estimate = [&](size_t i) {
    const auto it = correction.find(family_[i]);
    return offset + (it == correction.end() ? 0.0 : it->second) + predicted_[i];
  };
  std::vector<double> optimism;
  for (size_t i : fit) optimism.push_back(std::max(0.0, estimate(i) - *log_ns_[i]));
  const double margin = quantile(optimism, options_.optimism_quantile);

  // Without a single timing there is nothing to refit: the model's order continues.
  const double bar = fit.empty() ? INFINITY : best - std::log1p(options_.noise);
  std::vector<std::pair<double, size_t>> worth;
  for (size_t i = 0; i < predicted_.size(); ++i) {
    if (taken_[i]) continue;
    const double optimistic = estimate(i) - margin;
    if (optimistic < bar) worth.emplace_back(optimistic, i);
  }
  if (worth.empty()) {
    if (best_index < neighbours_.size()) {
      for (size_t j : neighbours_[best_index]) {
        if (!taken_[j]) {
          taken_[j] = true;
          queue_.push_back(j);
        }
      }
    }
    if (queue_.empty()) {
      stop_reason_ = "the model expects no unmeasured variant to beat the best by more than " +
                     std::to_string(static_cast<int>(options_.noise * 100)) +
                     "%, and no one-knob neighbour of the best is unmeasured";
    }
    return;
  }
  std::stable_sort(worth.begin(), worth.end());
  for (size_t j = 0; j < worth.size() && j < options_.round; ++j) {
    taken_[worth[j].second] = true;
    queue_.push_back(worth[j].second);
  }
}

}  // namespace vktune::tuner
