// The time stage on the test device: several variants sampled in shared submissions, each
// getting its own statistics; the order shuffled between rounds; the weight-copy index running
// on across variants, so no variant re-reads what the one before it just cached; a variant's
// setup recorded before each of its samples and left out of its time.
#include "tuner/batch_timer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <set>
#include <string>

#include "kernels/family.h"
#include "kernels/vk/kernel_instance.h"
#include "kernels/vk/shader_compiler.h"
#include "tests/kernels/vulkan_fixture.h"
#include "tuner/clock_probe.h"
#include "tuner/profile.h"

namespace vktune::tuner {
namespace {

class BatchTimerTest : public test::VulkanFixture {
 protected:
  kernels::KernelInstance Instance(const kernels::Problem& problem) {
    const kernels::Family& naive = *kernels::find_family("q4gsw_naive");
    return kernels::KernelInstance::create(device(), compiler_, naive, naive.all_variants().front(),
                                           problem, kernels::make_random(problem, 3));
  }
  kernels::KernelInstance Instance() { return Instance(problem_); }
  TimingOptions Options() const {
    TimingOptions t;
    t.min_sample_ns = 50'000;
    t.min_samples = 5;
    t.max_samples = 5;
    t.max_warmup_ns = 0;
    return t;
  }

  ShaderCompiler compiler_;
  const kernels::Problem problem_{kernels::Op("q4gsw"), 4, 256, 1024, 32, false};
};

TEST_F(BatchTimerTest, TimesEachVariantOnItsOwn) {
  const kernels::KernelInstance inst = Instance();
  // The same kernel once and four times a dispatch: the second must read about four times as
  // long, never less than twice (times swapped or shared between variants would read 0.25 or 1).
  // The upper bound is wide: a software device shares its cores with the other tests running,
  // and one lucky sample of the short kernel read 8.6 times shorter under a full ctest.
  const std::vector<TimedVariant> variants = {
      {[&](vk::CommandBuffer& cb, uint32_t) { inst.record(cb); }, {}},
      {[&](vk::CommandBuffer& cb, uint32_t) {
         for (int i = 0; i < 4; ++i) {
           inst.record(cb);
           cb.barrier();
         }
       },
       {}}};
  Profile profile;
  BatchTimer timer(device(), nullptr, &profile);
  const std::vector<double> estimate = {1e3, 4e3};
  TimingOptions options = Options();
  options.min_samples = options.max_samples = 9;
  const std::vector<SampleStats> stats = timer.measure(variants, estimate, options);
  ASSERT_EQ(stats.size(), 2u);
  for (const SampleStats& s : stats) EXPECT_EQ(s.n, 9u);
  const double ratio = stats[1].min / stats[0].min;
  EXPECT_GT(ratio, 2.0);
  EXPECT_LT(ratio, 16.0);
  EXPECT_GT(profile.spent(Stage::timing).count(), 0);
}

TEST_F(BatchTimerTest, ShufflesRoundsAndRotatesTheCopyIndexAcrossVariants) {
  const kernels::KernelInstance inst = Instance();
  std::vector<std::pair<size_t, uint32_t>> calls;  // (variant, rotation index) in record order
  std::vector<TimedVariant> variants;
  for (size_t v = 0; v < 6; ++v) {
    variants.push_back({[&calls, &inst, v](vk::CommandBuffer& cb, uint32_t i) {
                          calls.emplace_back(v, i);
                          inst.record(cb);
                        },
                        {}});
  }
  BatchTimer timer(device(), nullptr, nullptr);
  TimingOptions options = Options();
  options.min_sample_ns = 1;  // one dispatch a sample: each call below is one sample
  timer.measure(variants, std::vector<double>(6, 1e3), options);
  for (size_t i = 1; i < calls.size(); ++i) EXPECT_EQ(calls[i].second, calls[i - 1].second + 1);
  // After the calibration round (two dispatches each), rounds of six: their orders differ.
  std::set<std::vector<size_t>> orders;
  for (size_t start = 12; start + 6 <= calls.size(); start += 6) {
    std::vector<size_t> order;
    for (size_t i = start; i < start + 6; ++i) order.push_back(calls[i].first);
    orders.insert(order);
  }
  EXPECT_GT(orders.size(), 1u);
}

TEST_F(BatchTimerTest, RecordsEachSamplesSetupFirstAndOutsideTheTimestamps) {
  const kernels::KernelInstance inst = Instance();
  // Both variants dispatch the kernel once a sample; the second's setup dispatches it eight
  // times more before each sample. Timed inside the sample, the setup would make the second
  // read about nine times as long as the first.
  std::vector<std::string> order;  // what was recorded, in order: "setup", "1", "0"
  const std::vector<TimedVariant> variants = {
      {[&](vk::CommandBuffer& cb, uint32_t) {
         order.push_back("0");
         inst.record(cb);
       },
       {}},
      {[&](vk::CommandBuffer& cb, uint32_t) {
         order.push_back("1");
         inst.record(cb);
       },
       [&](vk::CommandBuffer& cb) {
         order.push_back("setup");
         for (int i = 0; i < 8; ++i) {
           inst.record(cb);
           cb.barrier();
         }
       }}};
  BatchTimer timer(device(), nullptr, nullptr);
  TimingOptions options = Options();
  options.min_sample_ns = 1;  // one dispatch a sample
  options.min_samples = options.max_samples = 9;
  const std::vector<SampleStats> stats =
      timer.measure(variants, std::vector<double>{1e3, 1e3}, options);
  ASSERT_EQ(stats.size(), 2u);
  EXPECT_LT(stats[1].median / stats[0].median, 3.0);
  // Each of the second's nine samples (no calibration round: the estimates already span a
  // sample) directly follows one setup of its own.
  size_t samples = 0;
  for (size_t i = 0; i < order.size(); ++i) {
    if (order[i] != "setup") continue;
    ++samples;
    ASSERT_LT(i + 1, order.size());
    EXPECT_EQ(order[i + 1], "1");
  }
  EXPECT_EQ(samples, 9u);
  EXPECT_EQ(std::count(order.begin(), order.end(), "1"), 9);
}

TEST_F(BatchTimerTest, ClockReadingsBracketEverySubmissionWithoutTouchingTheSamples) {
  // The smallest problem: what is checked is where the timestamps go, and a submission of 510
  // dispatches of the usual one took lavapipe 11-21 s, past the 10 s hang limit under load.
  const kernels::KernelInstance inst = Instance({kernels::Op("q4gsw"), 1, 8, 32, 32, false});
  ClockProbe probe(device(), compiler_, 2e6);
  Profile profile;
  BatchTimer timer(device(), &probe, &profile);
  // 600 entries a round: more than one submission's timestamps, so the readings' slots must
  // stay clear of the entries' in both.
  const std::vector<TimedVariant> variants(
      600, {[&](vk::CommandBuffer& cb, uint32_t) { inst.record(cb); }, {}});
  TimingOptions options = Options();
  options.min_sample_ns = 1;
  options.min_samples = options.max_samples = 2;
  const std::vector<SampleStats> stats =
      timer.measure(variants, std::vector<double>(600, 1e3), options);
  ASSERT_EQ(stats.size(), 600u);
  for (const SampleStats& s : stats) {
    EXPECT_EQ(s.n, 2u);
    EXPECT_GT(s.min, 0.0);
  }
  // A software device's "clock" is its load: re-runs may happen, at most two a submission
  // (two rounds of two submissions).
  EXPECT_LE(profile.low_clock_reruns(), 8u);
}

TEST_F(BatchTimerTest, AStopEndsTheMeasurementAtItsNextSubmission) {
  const kernels::KernelInstance inst = Instance();
  std::atomic<bool> stop = false;
  // The stop comes while the first submission is recorded (as a signal would, at any time).
  const std::vector<TimedVariant> variants(
      4, {[&](vk::CommandBuffer& cb, uint32_t) {
            inst.record(cb);
            stop = true;
          },
          {}});
  BatchTimer timer(device(), nullptr, nullptr);
  TimingOptions options = Options();
  options.stop = &stop;
  EXPECT_THROW(timer.measure(variants, std::vector<double>(4, 1e3), options), TimingStopped);
  EXPECT_TRUE(stop.load());
  // Without the stop the same measurement takes every sample.
  stop = false;
  options.stop = nullptr;
  const std::vector<SampleStats> stats =
      timer.measure(variants, std::vector<double>(4, 1e3), options);
  ASSERT_EQ(stats.size(), 4u);
  EXPECT_EQ(stats[0].n, 5u);
}

TEST_F(BatchTimerTest, WantsOneEstimatePerVariant) {
  BatchTimer timer(device(), nullptr, nullptr);
  const std::vector<TimedVariant> variants(2, {[](vk::CommandBuffer&, uint32_t) {}, {}});
  EXPECT_THROW(timer.measure(variants, std::vector<double>(1, 1.0), Options()),
               std::invalid_argument);
}

}  // namespace
}  // namespace vktune::tuner
