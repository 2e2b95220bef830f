// Histogram-binned gradient boosting: each tree fits the residuals of the trees before it on a
// fresh row sample, splitting where the squared error falls most.
#include "tuner/regression_trees.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

namespace vktune::tuner {
namespace {

// Uniform in [0, 1), the same on every standard library (std::uniform_real_distribution is not).
double unit(std::mt19937_64& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }

// The matrix cut into bins once. Bin 0 holds NaN; value bin b >= 1 holds the values v with
// cuts[b - 2] < v <= cuts[b - 1] (open-ended at both ends).
struct Binned {
  size_t rows = 0;
  std::vector<std::vector<float>> cuts;  // per column, ascending
  std::vector<uint8_t> bins;             // column-major: bins[column * rows + row]

  Binned(const Matrix& x, int max_bins) : rows(x.rows()), cuts(x.cols), bins(x.cols * x.rows()) {
    std::vector<float> sorted;
    for (size_t c = 0; c < x.cols; ++c) {
      sorted.clear();
      for (size_t r = 0; r < rows; ++r) {
        const float v = x.values[r * x.cols + c];
        if (!std::isnan(v)) sorted.push_back(v);
      }
      std::sort(sorted.begin(), sorted.end());
      std::vector<float> distinct = sorted;
      distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
      std::vector<float>& cut = cuts[c];
      if (distinct.size() <= static_cast<size_t>(max_bins)) {
        cut.assign(distinct.begin(), distinct.empty() ? distinct.end() : distinct.end() - 1);
      } else {
        for (int i = 1; i < max_bins; ++i) cut.push_back(sorted[i * sorted.size() / max_bins]);
        cut.erase(std::unique(cut.begin(), cut.end()), cut.end());
      }
      for (size_t r = 0; r < rows; ++r) {
        const float v = x.values[r * x.cols + c];
        bins[c * rows + r] =
            std::isnan(v) ? 0
                          : static_cast<uint8_t>(
                                1 + (std::lower_bound(cut.begin(), cut.end(), v) - cut.begin()));
      }
    }
  }
  size_t bin_count(size_t column) const { return cuts[column].size() + 2; }
};

}  // namespace

class TreeBuilder {
 public:
  TreeBuilder(const Binned& binned, const BoostOptions& options, RegressionTrees& model)
      : binned_(binned), options_(options), model_(model) {}

  // Grows a tree over `rows` fitting `residual`; returns its root's index.
  int32_t grow(std::span<uint32_t> rows, const std::vector<double>& residual, int depth) {
    const auto index = static_cast<int32_t>(model_.nodes_.size());
    model_.nodes_.emplace_back();
    double sum = 0;
    for (uint32_t r : rows) sum += residual[r];
    const auto n = static_cast<double>(rows.size());
    model_.nodes_[index].value = options_.learning_rate * sum / n;
    if (depth >= options_.depth || rows.size() < 2 * options_.min_leaf) return index;

    // The split with the largest fall in squared error: sum_L^2/n_L + sum_R^2/n_R - sum^2/n.
    double best_gain = 1e-12;
    size_t best_feature = 0, best_bin = 0;
    std::vector<double> hist_sum;
    std::vector<uint32_t> hist_count;
    for (size_t f = 0; f < binned_.cuts.size(); ++f) {
      const size_t bins = binned_.bin_count(f);
      hist_sum.assign(bins, 0);
      hist_count.assign(bins, 0);
      const uint8_t* column = binned_.bins.data() + f * binned_.rows;
      for (uint32_t r : rows) {
        hist_sum[column[r]] += residual[r];
        ++hist_count[column[r]];
      }
      double left_sum = 0;
      size_t left_count = 0;
      for (size_t b = 0; b + 1 < bins; ++b) {
        left_sum += hist_sum[b];
        left_count += hist_count[b];
        if (left_count < options_.min_leaf) continue;
        const size_t right_count = rows.size() - left_count;
        if (right_count < options_.min_leaf) break;
        const double right_sum = sum - left_sum;
        const double gain = left_sum * left_sum / static_cast<double>(left_count) +
                            right_sum * right_sum / static_cast<double>(right_count) -
                            sum * sum / n;
        if (gain > best_gain) {
          best_gain = gain;
          best_feature = f;
          best_bin = b;
        }
      }
    }
    if (best_gain <= 1e-12) return index;

    const uint8_t* column = binned_.bins.data() + best_feature * binned_.rows;
    const auto middle = std::stable_partition(rows.begin(), rows.end(),
                                              [&](uint32_t r) { return column[r] <= best_bin; });
    const size_t split = static_cast<size_t>(middle - rows.begin());
    const int32_t left = grow(rows.subspan(0, split), residual, depth + 1);
    const int32_t right = grow(rows.subspan(split), residual, depth + 1);
    RegressionTrees::Node& node = model_.nodes_[index];
    node.feature = static_cast<int32_t>(best_feature);
    // Bin 0 alone (NaN) on the left: no finite value is <= -inf.
    node.threshold = best_bin == 0 ? -std::numeric_limits<float>::infinity()
                                   : binned_.cuts[best_feature][best_bin - 1];
    node.left = left;
    node.right = right;
    return index;
  }

 private:
  const Binned& binned_;
  const BoostOptions& options_;
  RegressionTrees& model_;
};

RegressionTrees RegressionTrees::fit(const Matrix& x, std::span<const double> y,
                                     const BoostOptions& options) {
  RegressionTrees model;
  const size_t rows = x.rows();
  if (rows == 0) return model;
  double mean = 0;
  for (double v : y) mean += v;
  model.base_ = mean / static_cast<double>(rows);
  std::vector<double> residual(rows);
  for (size_t r = 0; r < rows; ++r) residual[r] = y[r] - model.base_;

  const Binned binned(x, std::clamp(options.bins, 2, 254));
  TreeBuilder builder(binned, options, model);
  std::mt19937_64 rng(options.seed);
  std::vector<uint32_t> sample;
  for (int t = 0; t < options.trees; ++t) {
    sample.clear();
    for (uint32_t r = 0; r < rows; ++r) {
      if (unit(rng) < options.subsample) sample.push_back(r);
    }
    if (sample.size() < 2 * options.min_leaf) continue;
    const int32_t root = builder.grow(sample, residual, 0);
    model.roots_.push_back(root);
    for (size_t r = 0; r < rows; ++r) residual[r] -= model.tree_value(root, x.row(r));
  }
  return model;
}

double RegressionTrees::tree_value(int32_t node, std::span<const float> row) const {
  while (nodes_[node].feature >= 0) {
    const float v = row[nodes_[node].feature];
    node = std::isnan(v) || v <= nodes_[node].threshold ? nodes_[node].left : nodes_[node].right;
  }
  return nodes_[node].value;
}

double RegressionTrees::predict(std::span<const float> row) const {
  double sum = base_;
  for (int32_t root : roots_) sum += tree_value(root, row);
  return sum;
}

}  // namespace vktune::tuner
