// Gradient-boosted regression trees (squared loss) over a dense float matrix: the learner of
// the cost model (tuner/cost_model.h). Hand-written rather than a library because Debian's
// candidates (xgboost, lightgbm) are large, thread-pooled and not in the build; this one is a
// few hundred lines, deterministic for a seed and fits ~100k rows x ~50 features in seconds.
// Features are cut into quantile bins once; NaN (a knob another family has) is a bin of its
// own that always goes left.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace vktune::tuner {

struct BoostOptions {
  int trees = 120;
  int depth = 6;
  double learning_rate = 0.15;
  double subsample = 0.5;  // rows each tree sees, drawn afresh per tree
  size_t min_leaf = 8;     // rows a leaf must keep
  int bins = 48;           // value bins per feature (plus one for NaN)
  uint64_t seed = 1;
};

// Row-major samples: rows() x cols() floats.
struct Matrix {
  size_t cols = 0;
  std::vector<float> values;
  size_t rows() const { return cols == 0 ? 0 : values.size() / cols; }
  std::span<const float> row(size_t i) const { return {values.data() + i * cols, cols}; }
};

class RegressionTrees {
 public:
  // Fits `y` (one target per row of `x`); an empty `x` gives a model that predicts 0.
  // Deterministic: the same inputs and seed give the same model. Not thread-safe while fitting;
  // predict is const and may run on any thread.
  static RegressionTrees fit(const Matrix& x, std::span<const double> y,
                             const BoostOptions& options);
  // `row` has as many features as the rows it was fitted on.
  double predict(std::span<const float> row) const;
  size_t tree_count() const { return roots_.size(); }

 private:
  struct Node {
    int32_t feature = -1;  // -1: a leaf holding `value`
    float threshold = 0;   // NaN or <= threshold goes left
    int32_t left = 0, right = 0;
    double value = 0;
  };
  // The leaf value `row` reaches from `node`.
  double tree_value(int32_t node, std::span<const float> row) const;

  double base_ = 0;
  std::vector<Node> nodes_;
  std::vector<int32_t> roots_;
  friend class TreeBuilder;
};

}  // namespace vktune::tuner
