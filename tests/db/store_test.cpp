// Store writes and reads: upserts, runs, measurements, resume checks and the `best` view.
#include "db/store.h"

#include <gtest/gtest.h>

#include "db/error.h"
#include "kernels/device_type.h"
#include "tests/db/fixtures.h"

namespace vktune::db {
namespace {

using testing::fake_device;
using testing::fake_kernel;
using testing::fake_problem;
using testing::ok_measurement;

TEST(Store, UpsertsReturnStableIds) {
  Store s = Store::open_memory();
  const auto d = s.upsert_device(fake_device());
  EXPECT_EQ(s.upsert_device(fake_device()), d);
  EXPECT_NE(s.upsert_device(fake_device(0x10de, 0x2684, 101)), d);  // other driver version
  const auto k = s.upsert_kernel(fake_kernel("a[x=1]"));
  EXPECT_EQ(s.upsert_kernel(fake_kernel("a[x=1]")), k);
  const auto p = s.upsert_problem(fake_problem(1, 2, 4));
  EXPECT_EQ(s.upsert_problem(fake_problem(1, 2, 4)), p);
  EXPECT_EQ(s.devices().size(), 2u);
  EXPECT_EQ(s.kernels().size(), 1u);
  EXPECT_EQ(s.problems().size(), 1u);
}

TEST(Store, DeviceRoundTripsEveryField) {
  Store s = Store::open_memory();
  DeviceRecord d = fake_device();
  d.copy_bandwidth_gbps = 321.5;
  d.id = s.upsert_device(d);
  ASSERT_EQ(s.devices().size(), 1u);
  EXPECT_EQ(s.devices()[0], d);
}

TEST(Store, CopyBandwidthKeepsTheHighestMeasurement) {
  Store s = Store::open_memory();
  const auto id = s.upsert_device(fake_device());
  s.raise_copy_bandwidth(id, 2955.0);
  s.raise_copy_bandwidth(id, 2057.0);  // a run at lowered clocks
  EXPECT_EQ(s.devices()[0].copy_bandwidth_gbps, 2955.0);
  s.raise_copy_bandwidth(id, 2960.0);
  EXPECT_EQ(s.devices()[0].copy_bandwidth_gbps, 2960.0);
}

TEST(Store, UpdateKeepsMeasuredBandwidth) {
  Store s = Store::open_memory();
  const auto id = s.upsert_device(fake_device());
  s.raise_copy_bandwidth(id, 500.0);
  DeviceRecord again = fake_device();
  again.driver_info = "new info";
  s.upsert_device(again);
  EXPECT_EQ(s.devices()[0].copy_bandwidth_gbps, 500.0);
  EXPECT_EQ(s.devices()[0].driver_info, "new info");
}

TEST(Store, RejectsBadFieldsByName) {
  Store s = Store::open_memory();
  DeviceRecord d = fake_device();
  d.pipeline_cache_uuid = "xyz";
  try {
    s.upsert_device(d);
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("pipeline_cache_uuid"), std::string::npos);
  }
  d = fake_device();
  d.device_type = "gpu";
  EXPECT_THROW(s.upsert_device(d), Error);
  EXPECT_THROW(s.upsert_problem(fake_problem(0, 1, 1)), Error);
}

// The store keeps its own list of device types (vktune_db depends on nothing): the names the
// catalogue writes, every one of them.
TEST(Store, TakesEveryDeviceTypeTheCatalogueNames) {
  Store s = Store::open_memory();
  for (std::string_view name : vk::kDeviceTypeNames) {
    DeviceRecord d = fake_device();
    d.device_type = std::string(name);
    EXPECT_NO_THROW(s.upsert_device(d)) << name;
  }
}

TEST(Store, HasMeasurementCoversAnyRunAndStatus) {
  Store s = Store::open_memory();
  testing::populate(s);
  EXPECT_TRUE(s.has_measurement(1, 1, 1));
  EXPECT_TRUE(s.has_measurement(2, 2, 1));   // a compile_error counts: it was tried
  EXPECT_FALSE(s.has_measurement(2, 2, 2));  // never tried
}

TEST(Store, MeasurementsRoundTripAndFilter) {
  Store s = Store::open_memory();
  testing::populate(s);
  EXPECT_EQ(s.measurements().size(), 5u);
  MeasurementFilter f;
  f.device_id = 1;
  EXPECT_EQ(s.measurements(f).size(), 3u);
  f.status = Status::ok;
  f.kernel_id = 2;
  const auto rows = s.measurements(f);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0], [&] {
    auto m = ok_measurement(1, 1, 1, 2, 2000);
    m.id = rows[0].id;
    return m;
  }());
  MeasurementFilter errors;
  errors.status = Status::compile_error;
  ASSERT_EQ(s.measurements(errors).size(), 1u);
  EXPECT_EQ(s.measurements(errors)[0].message, "shared memory exceeded");
  EXPECT_FALSE(s.measurements(errors)[0].median_ns.has_value());
}

TEST(Store, OkNeedsMedian) {
  Store s = Store::open_memory();
  testing::populate(s);
  Measurement m = ok_measurement(1, 1, 1, 1, 1);
  m.median_ns.reset();
  EXPECT_THROW(s.add_measurement(m), Error);
}

TEST(Store, BestPicksSmallestMedianPerDeviceProblem) {
  Store s = Store::open_memory();
  testing::populate(s);
  const auto best = s.best(1);
  ASSERT_EQ(best.size(), 2u);
  EXPECT_EQ(best[0].problem_id, 1);
  EXPECT_EQ(best[0].kernel_id, 1);
  EXPECT_EQ(best[0].median_ns, 1000);
  EXPECT_EQ(best[1].kernel_id, 2);
  // Device 2 problem 2 only failed to compile: no winner.
  ASSERT_EQ(s.best(2).size(), 1u);
  EXPECT_EQ(s.best().size(), 3u);
}

TEST(Store, BestTieGoesToLatestRun) {
  Store s = Store::open_memory();
  testing::populate(s);
  RunRecord later;
  later.started_at = "2024-06-01T00:00:00Z";
  const auto run2 = s.begin_run(later);
  s.add_measurement(ok_measurement(run2, 1, 1, 2, 1000));  // ties kernel 1's 1000 ns
  const auto best = s.best(1);
  EXPECT_EQ(best[0].kernel_id, 2);
  EXPECT_EQ(best[0].run_id, run2);
}

// A later run's slower time of a kernel replaces its earlier, faster one: the minimum over runs
// could only fall, so a re-measurement could never correct a flattering time.
TEST(Store, BestReadsEachKernelsLatestTime) {
  Store s = Store::open_memory();
  testing::populate(s);  // device 1, problem 1: kernel 1 at 1000 ns, kernel 2 at 2000 ns
  RunRecord later;
  later.started_at = "2024-06-01T00:00:00Z";
  const auto run2 = s.begin_run(later);
  s.add_measurement(ok_measurement(run2, 1, 1, 1, 2500));
  EXPECT_EQ(s.best(1)[0].kernel_id, 2);
  EXPECT_EQ(s.best(1)[0].median_ns, 2000);
  // Same start, higher id: the later of the two, so kernel 2's 3000 ns now stands.
  const auto run3 = s.begin_run(later);
  s.add_measurement(ok_measurement(run3, 1, 1, 2, 3000));
  EXPECT_EQ(s.best(1)[0].kernel_id, 1);
  EXPECT_EQ(s.best(1)[0].run_id, run2);
  EXPECT_EQ(s.catalog().winners, s.best());
  // A later failure does not count as a time: the kernel keeps its latest ok one.
  Measurement timeout = ok_measurement(s.begin_run(later), 1, 1, 1, 1.0);
  timeout.status = Status::timeout;
  timeout.median_ns.reset();
  s.add_measurement(timeout);
  EXPECT_EQ(s.best(1)[0].median_ns, 2500);
}

// A variant re-measured after its shader source changed is a new kernel row of the same key; its
// new time replaces the old source's, which no longer describes what the tuner builds.
TEST(Store, BestReadsAVariantsLatestSource) {
  Store s = Store::open_memory();
  testing::populate(s);  // device 1, problem 1: kernel 1 at 1000 ns, kernel 2 at 2000 ns
  KernelRecord new_source = fake_kernel("q4gsw_gemv[layout=raw,wg=64]");
  new_source.source_hash = "hash-after-a-change";
  const auto k3 = s.upsert_kernel(new_source);
  RunRecord later;
  later.started_at = "2024-06-01T00:00:00Z";
  s.add_measurement(ok_measurement(s.begin_run(later), 1, 1, k3, 2200));
  EXPECT_EQ(s.best(1)[0].kernel_id, 2);
  EXPECT_EQ(s.catalog().winners, s.best());
}

TEST(Store, WrongResultKernelIsNeverBest) {
  Store s = Store::open_memory();
  testing::populate(s);
  RunRecord later;
  const auto run2 = s.begin_run(later);
  Measurement wrong;
  wrong.run_id = run2;
  wrong.device_id = 1;
  wrong.problem_id = 1;
  wrong.kernel_id = 1;
  wrong.status = Status::wrong_result;
  s.add_measurement(wrong);
  EXPECT_EQ(s.best(1)[0].kernel_id, 2);
}

TEST(Store, SameRunResultIsReplacedUnderUpdate) {
  Store s = Store::open_memory();
  testing::populate(s);
  s.add_measurement(ok_measurement(1, 1, 1, 1, 700));
  EXPECT_EQ(s.measurements().size(), 5u);
  EXPECT_EQ(s.best(1)[0].median_ns, 700);
  s.add_measurement(ok_measurement(1, 1, 1, 1, 600), OnConflict::keep);
  EXPECT_EQ(s.best(1)[0].median_ns, 700);
}

TEST(Store, RunsRecordTimesAndUuid) {
  Store s = Store::open_memory();
  const auto id = s.begin_run({});
  auto runs = s.runs();
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].uuid.size(), 32u);
  EXPECT_EQ(runs[0].started_at.size(), 20u);
  EXPECT_FALSE(runs[0].ended_at);
  s.end_run(id);
  EXPECT_TRUE(s.runs()[0].ended_at);
  EXPECT_THROW(s.end_run(42), Error);
}

TEST(Store, BatchTransactionRollsBackUnlessCommitted) {
  Store s = Store::open_memory();
  testing::populate(s);
  {
    auto t = s.transaction();
    s.add_measurement(ok_measurement(1, 2, 2, 2, 1.0));  // nests as a savepoint
    EXPECT_TRUE(s.has_measurement(2, 2, 2));
  }
  EXPECT_FALSE(s.has_measurement(2, 2, 2));
  {
    auto t = s.transaction();
    s.add_measurement(ok_measurement(1, 2, 2, 2, 1.0));
    t.commit();
  }
  EXPECT_TRUE(s.has_measurement(2, 2, 2));
}

TEST(Store, CatalogWinnersEqualBestView) {
  Store s = Store::open_memory();
  testing::populate(s);
  RunRecord later;
  later.started_at = "2024-06-01T00:00:00Z";
  const auto run2 = s.begin_run(later);
  s.add_measurement(ok_measurement(run2, 1, 1, 2, 1000));  // tie, later run
  RunRecord same_time;
  same_time.started_at = "2024-06-01T00:00:00Z";
  const auto run3 = s.begin_run(same_time);
  s.add_measurement(ok_measurement(run3, 1, 2, 1, 5000));  // tie, same start, higher run id
  Measurement wrong;
  wrong.run_id = run3;
  wrong.device_id = 2;
  wrong.problem_id = 1;
  wrong.kernel_id = 2;
  wrong.status = Status::wrong_result;
  s.add_measurement(wrong);  // device 2 problem 1 loses its only winner
  // Device 1 problem 2: kernel 2 re-timed slower, then kernel 1's tie re-timed slower still.
  s.add_measurement(ok_measurement(run2, 1, 2, 2, 5500));
  RunRecord latest;
  latest.started_at = "2024-07-01T00:00:00Z";
  s.add_measurement(ok_measurement(s.begin_run(latest), 1, 2, 1, 7000));
  EXPECT_EQ(s.catalog().winners, s.best());
  EXPECT_EQ(s.best(1)[1].median_ns, 5500);
  EXPECT_EQ(s.best().size(), 2u);
}

TEST(Store, CatalogHoldsWinnersAndSpirv) {
  Store s = Store::open_memory();
  testing::populate(s);
  const Catalog c = s.catalog();
  EXPECT_EQ(c.devices.size(), 2u);
  EXPECT_EQ(c.winners.size(), 3u);
  ASSERT_TRUE(c.kernels[0].spirv);
  EXPECT_EQ(c.kernels[0].spirv->size(), 24u);
  EXPECT_FALSE(s.catalog(false).kernels[0].spirv);
}

}  // namespace
}  // namespace vktune::db
