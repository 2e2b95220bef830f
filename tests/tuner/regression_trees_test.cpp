// Boosted trees: learn a known function well enough to predict unseen rows, send NaN its own
// way, and give the same model for the same seed.
#include "tuner/regression_trees.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

namespace vktune::tuner {
namespace {

// A step in x0, a curve in x1 and an interaction with x2; x3 is noise the model must ignore.
double truth(float x0, float x1, float x2) {
  return (x0 > 0.5f ? 2.0 : 0.0) + x1 * x1 + (x2 > 0.3f && x0 < 0.5f ? 1.0 : 0.0);
}

Matrix sample(size_t rows, uint64_t seed, std::vector<double>& y) {
  std::mt19937_64 rng(seed);
  auto unit = [&rng] { return static_cast<float>(rng() >> 40) / static_cast<float>(1 << 24); };
  Matrix x;
  x.cols = 4;
  y.clear();
  for (size_t r = 0; r < rows; ++r) {
    const float a = unit(), b = unit(), c = unit(), d = unit();
    x.values.insert(x.values.end(), {a, b, c, d});
    y.push_back(truth(a, b, c));
  }
  return x;
}

TEST(RegressionTreesTest, LearnsASyntheticFunctionOnUnseenRows) {
  std::vector<double> y, y_test;
  const Matrix x = sample(4000, 1, y);
  const Matrix test = sample(1000, 2, y_test);
  const RegressionTrees model = RegressionTrees::fit(x, y, {});
  double error = 0, variance = 0, mean = 0;
  for (double v : y_test) mean += v / static_cast<double>(y_test.size());
  for (size_t r = 0; r < test.rows(); ++r) {
    error += std::pow(model.predict(test.row(r)) - y_test[r], 2);
    variance += std::pow(y_test[r] - mean, 2);
  }
  EXPECT_LT(error, 0.03 * variance);  // explains over 97% of the variance on unseen rows
}

TEST(RegressionTreesTest, SameSeedSameModelOtherSeedOtherSample) {
  std::vector<double> y, y_test;
  const Matrix x = sample(2000, 3, y);
  const Matrix test = sample(50, 4, y_test);
  BoostOptions options;
  const RegressionTrees a = RegressionTrees::fit(x, y, options);
  const RegressionTrees b = RegressionTrees::fit(x, y, options);
  options.seed = 2;
  const RegressionTrees c = RegressionTrees::fit(x, y, options);
  bool differs = false;
  for (size_t r = 0; r < test.rows(); ++r) {
    EXPECT_EQ(a.predict(test.row(r)), b.predict(test.row(r)));
    differs |= a.predict(test.row(r)) != c.predict(test.row(r));
  }
  EXPECT_TRUE(differs);
}

TEST(RegressionTreesTest, NanIsABinOfItsOwn) {
  // Rows whose feature is NaN (another family's knob) have their own target.
  Matrix x;
  x.cols = 1;
  std::vector<double> y;
  for (int i = 0; i < 300; ++i) {
    const bool missing = i % 3 == 0;
    x.values.push_back(missing ? std::numeric_limits<float>::quiet_NaN() : static_cast<float>(i));
    y.push_back(missing ? 5.0 : 1.0);
  }
  const RegressionTrees model = RegressionTrees::fit(x, y, {});
  const float nan = std::numeric_limits<float>::quiet_NaN(), value = 7;
  EXPECT_NEAR(model.predict({&nan, 1}), 5.0, 0.1);
  EXPECT_NEAR(model.predict({&value, 1}), 1.0, 0.1);
}

TEST(RegressionTreesTest, NoRowsPredictZero) {
  const RegressionTrees model = RegressionTrees::fit(Matrix{}, {}, {});
  EXPECT_EQ(model.tree_count(), 0u);
  const float v = 1;
  EXPECT_EQ(model.predict({&v, 1}), 0.0);
}

}  // namespace
}  // namespace vktune::tuner
