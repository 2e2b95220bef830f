// The model strategy's side of the session: what the cost model learns from (the stores'
// measurements on this device, then each problem the run finishes), when it is retrained, and
// the search it drives for one problem (tuner/model_search.h).
#include <algorithm>
#include <chrono>
#include <cstdio>

#include "kernels/op.h"
#include "tuner/knob_neighbours.h"
#include "tuner/search.h"
#include "tuner/session.h"

namespace vktune::tuner {
namespace {

// Neighbours' winners the search measures first, nearest first: a good guess, cheaply checked.
constexpr size_t kNeighbourWinners = 4;
// Training takes seconds: retrain once an op's problems grew by this factor since the last time.
constexpr double kRetrainGrowth = 1.5;

std::string count_text(size_t n, const char* what) {
  return std::to_string(n) + " " + what + (n == 1 ? "" : "s");
}

}  // namespace

void Session::train_model() {
  const auto start = std::chrono::steady_clock::now();
  if (observations_.empty()) {
    observations_ = read_observations(store_, device_->info().name);
    if (train_store_ != nullptr) {
      std::vector<Observation> more = read_observations(*train_store_, train_device());
      observations_.insert(observations_.end(), std::make_move_iterator(more.begin()),
                           std::make_move_iterator(more.end()));
    }
    for (const Observation& o : observations_) seen_knobs_.add(*o.family, o.knobs);
  }
  BoostOptions boost;
  boost.seed = options_.seed;
  model_ = CostModel::train(observations_, device_->info(), boost);
  std::string text = "model: trained on";
  for (const kernels::OpDescriptor* descriptor : kernels::all_ops()) {
    const kernels::Op op = *descriptor;
    const size_t n = count_problems(observations_, op);
    if (n == 0) continue;
    // Appended piece by piece: GCC 12 warns (-Wrestrict, a known false positive) on
    // " " + std::string chains here.
    ((text += ' ') += std::to_string(n)) += ' ';
    text += kernels::op_name(op);
    text += n == 1 ? " problem" : " problems";
    text += model_->covers(op) ? "," : " (too few to rank: swept and learnt from),";
  }
  char seconds[48];
  std::snprintf(seconds, sizeof seconds, " %.1f s",
                std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  progress_.note(text + " " + count_text(observations_.size(), "measurement") + seconds);
}

std::optional<ModelSearch> Session::model_search(const kernels::Problem& problem,
                                                 const std::vector<Candidate>& list) {
  if (!model_ || !model_->covers(problem.op)) {
    progress_.note("model: fewer than " + std::to_string(kMinTrainingProblems) + " " +
                   kernels::op_name(problem.op) +
                   " problems learnt on this device: sweeping this one (halving) to learn from");
    return std::nullopt;
  }
  std::vector<double> predicted;
  std::vector<size_t> family;
  std::map<const kernels::Family*, size_t> family_index;
  for (const Candidate& c : list) {
    predicted.push_back(model_->predict(*c.family, c.knobs, problem));
    family.push_back(family_index.emplace(c.family, family_index.size()).first->second);
  }
  // First: the nearest neighbours' winners, then the baselines every speedup is quoted against.
  const std::map<std::string, double> winners = neighbour_winners(problem);
  std::vector<std::pair<double, size_t>> near;
  std::vector<size_t> first;
  const std::string fixed = fixed_routing_key(problem);
  for (size_t i = 0; i < list.size(); ++i) {
    const auto it = winners.find(list[i].key);
    if (it != winners.end()) near.emplace_back(it->second, i);
  }
  std::stable_sort(near.begin(), near.end());
  if (near.size() > kNeighbourWinners) near.resize(kNeighbourWinners);
  for (const auto& [distance, i] : near) first.push_back(i);
  for (size_t i = 0; i < list.size(); ++i) {
    if (list[i].key == fixed || kernels::is_baseline(*list[i].family)) first.push_back(i);
  }
  std::vector<KnobbedVariant> knobbed;
  for (const Candidate& c : list) knobbed.push_back({c.family, &c.knobs});
  // Then the best-ranked variant of each knob value the model never saw measured: it cannot
  // rank those (tuner/unseen_knob_values.h).
  const std::vector<size_t> unseen = seen_knobs_.best_unseen(knobbed, predicted);
  first.insert(first.end(), unseen.begin(), unseen.end());
  ModelSearchOptions options;
  options.seed = options_.seed;
  ModelSearch search(std::move(predicted), std::move(family), first, options,
                     one_knob_neighbours(knobbed));
  for (size_t i = 0; i < list.size(); ++i) {
    if (list[i].resumed) search.measured(i, list[i].stats->median);
  }
  return search;
}

void Session::learn(const kernels::Problem& problem, const std::vector<Candidate>& list) {
  if (options_.strategy != Strategy::model) return;
  const size_t trained = model_ ? model_->problems(problem.op) : 0;
  for (const Candidate& c : list) {
    if (!c.timed()) continue;
    observations_.push_back({problem, c.family, c.knobs, c.stats->median});
    seen_knobs_.add(*c.family, c.knobs);
  }
  const size_t now = count_problems(observations_, problem.op);
  if (trained == 0 ? now >= kMinTrainingProblems
                   : static_cast<double>(now) >= kRetrainGrowth * static_cast<double>(trained)) {
    train_model();
  }
}

}  // namespace vktune::tuner
