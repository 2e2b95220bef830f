// Order statistics and the median's confidence interval.
#include "tuner/statistics.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

namespace vktune::tuner {
namespace {

TEST(StatisticsTest, OrderStatisticsOfKnownSamples) {
  const std::vector<double> samples = {5, 1, 4, 2, 3, 10, 6, 7, 9, 8, 11};
  const SampleStats s = summarize(samples);
  EXPECT_EQ(s.n, 11u);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.median, 6);
  EXPECT_DOUBLE_EQ(s.p10, 2);
  EXPECT_DOUBLE_EQ(s.p90, 10);
}

TEST(StatisticsTest, MedianConfidenceTightensWithAgreeingSamples) {
  std::vector<double> tight(20, 100.0), loose;
  for (int i = 0; i < 20; ++i) {
    tight[i] += (i % 2) * 0.1;
    loose.push_back(50.0 + 5.0 * i);
  }
  EXPECT_LT(summarize(tight).median_ci, 0.01);
  EXPECT_GT(summarize(loose).median_ci, 0.1);
  // Too few samples to bound the median: reported as fully uncertain.
  const std::vector<double> few = {1, 1, 1};
  EXPECT_DOUBLE_EQ(summarize(few).median_ci, 1.0);
}

TEST(StatisticsTest, NoSamplesIsAnError) {
  EXPECT_THROW(summarize(std::vector<double>{}), std::invalid_argument);
}

}  // namespace
}  // namespace vktune::tuner
