// The model strategy's decisions for one problem, as a pure rule over predictions and the
// timings seen so far: which variants to measure next and when to stop. First round: the
// variants the run wants first (neighbours' winners, baselines, the best-ranked holder of each
// knob value the model never saw: tuner/unseen_knob_values.h), the model's best-ranked fraction
// and a few random ones per family (exploration, so a family the model underrates is still
// seen). Then, after each round, the model is refitted to this problem (its offset and a
// per-family correction, from the residuals of what was measured) and the next round takes the
// unmeasured variants that could still beat the best by more than the noise. When the model
// expects nothing more, a round of local moves: the best variant's unmeasured one-knob
// neighbours (tuner/knob_neighbours.h), repeated while they improve the best, since on a shape
// unlike its training the model's ranking errs around the best more than far from it. None
// left, or the cap reached, and the search stops.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace vktune::tuner {

struct ModelSearchOptions {
  double first_fraction = 0.06;   // of the variants, measured in the model's order first
  size_t first_minimum = 12;      // ... but at least this many
  size_t explore_per_family = 2;  // random variants per family in the first round
  double max_fraction = 0.18;     // the cap; finalists are re-measured within it
  size_t round = 16;              // variants per later round
  double noise = 0.02;            // a gain below this is not worth a measurement
  // Quantile of the refitted model's optimism (how much faster than predicted the measured
  // variants turned out): a variant is worth measuring while its prediction less this could
  // beat the best.
  double optimism_quantile = 0.9;
  uint64_t seed = 1;
};

class ModelSearch {
 public:
  // predicted[i]: the cost model's prediction for variant i (log time relative to the best;
  // smaller is faster). family[i]: its family's index (any numbering). `first`: variants
  // measured in the first round whatever the model says, in this order. neighbours[i]: the
  // variants one knob from variant i (empty: no local moves).
  ModelSearch(std::vector<double> predicted, std::vector<size_t> family,
              const std::vector<size_t>& first, const ModelSearchOptions& options,
              std::vector<std::vector<size_t>> neighbours = {});

  // Variant `i` was measured: `ns` its median, nullopt when it failed (or was not timed). A
  // variant measured before it was handed out is not handed out later.
  void measured(size_t i, std::optional<double> ns);
  // Up to `max` variants to measure next, never one already handed out; empty when the model
  // expects no gain above the noise or the cap is reached (stop_reason() says which).
  std::vector<size_t> next(size_t max);
  const std::string& stop_reason() const { return stop_reason_; }
  size_t handed_out() const { return handed_out_; }

 private:
  // Refits to what was measured and queues the next round.
  void plan_round();

  std::vector<double> predicted_;
  std::vector<size_t> family_;
  std::vector<std::vector<size_t>> neighbours_;
  ModelSearchOptions options_;
  std::vector<bool> taken_;
  std::vector<std::optional<double>> log_ns_;  // of the measured ones
  std::vector<size_t> queue_;                  // handed out before the next refit
  size_t queued_at_ = 0;
  size_t handed_out_ = 0, cap_ = 0;
  std::string stop_reason_;
};

}  // namespace vktune::tuner
