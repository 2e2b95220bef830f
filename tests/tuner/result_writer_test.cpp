// The store stage: results wait in a queue and are committed together, when due, on flush and
// when the writer goes away (an exception unwinding a run keeps what was measured).
#include "tuner/result_writer.h"

#include <gtest/gtest.h>

#include "db/store.h"

namespace vktune::tuner {
namespace {

class ResultWriterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    db::DeviceRecord device;
    device.vendor_id = 1;
    device.device_id = 2;
    device.name = "test device";
    device.pipeline_cache_uuid = std::string(32, '0');
    device.device_type = "cpu";
    device_id_ = store_.upsert_device(device);
    problem_id_ = store_.upsert_problem({0, "q4gsw", "f32", 1, 8, 8, 8});
    run_id_ = store_.begin_run({});
    for (const char* key : {"q4gsw_naive[wg=32]", "q4gsw_naive[wg=64]", "q4gsw_naive[wg=128]"}) {
      db::KernelRecord k;
      k.family = "q4gsw_naive";
      k.variant_key = key;
      k.source_hash = "hash";
      kernel_ids_.push_back(store_.upsert_kernel(k));
    }
  }
  db::Measurement Result(size_t kernel, double median_ns) const {
    db::Measurement m;
    m.run_id = run_id_;
    m.device_id = device_id_;
    m.problem_id = problem_id_;
    m.kernel_id = kernel_ids_.at(kernel);
    m.n = 1;
    m.median_ns = m.min_ns = m.p10_ns = m.p90_ns = median_ns;
    return m;
  }

  db::Store store_ = db::Store::open_memory();
  int64_t device_id_ = 0, problem_id_ = 0, run_id_ = 0;
  std::vector<int64_t> kernel_ids_;
};

TEST_F(ResultWriterTest, QueuesUntilFlushedThenCommitsTogether) {
  ResultWriter writer(store_, std::chrono::hours(1));
  writer.add(Result(0, 10));
  writer.add(Result(1, 20));
  EXPECT_EQ(writer.pending(), 2u);
  EXPECT_TRUE(store_.measurements().empty());
  writer.flush();
  EXPECT_EQ(writer.pending(), 0u);
  EXPECT_EQ(store_.measurements().size(), 2u);
}

TEST_F(ResultWriterTest, CommitsOnceTheOldestResultIsDue) {
  ResultWriter writer(store_, std::chrono::milliseconds(0));
  writer.add(Result(0, 10));
  EXPECT_EQ(writer.pending(), 0u);
  EXPECT_EQ(store_.measurements().size(), 1u);
}

TEST_F(ResultWriterTest, ALaterStageReplacesTheEarlierResult) {
  ResultWriter writer(store_, std::chrono::hours(1));
  writer.add(Result(2, 30));
  writer.add(Result(2, 25));  // the same variant re-measured by a later stage
  writer.flush();
  const auto rows = store_.measurements();
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(*rows[0].median_ns, 25);
}

TEST_F(ResultWriterTest, GoingAwayCommitsWhatIsQueued) {
  {
    ResultWriter writer(store_, std::chrono::hours(1));
    writer.add(Result(0, 10));
    writer.add(Result(1, 20));
  }
  EXPECT_EQ(store_.measurements().size(), 2u);
}

}  // namespace
}  // namespace vktune::tuner
