// merge(A, B): the union of both, matched by natural keys; merging again adds nothing.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>

#include "db/json_io.h"
#include "db/store.h"
#include "tests/db/fixtures.h"

namespace vktune::db {
namespace {

using testing::fake_device;
using testing::fake_kernel;
using testing::fake_problem;
using testing::ok_measurement;

// B shares a device, a kernel and a problem with A, under different row ids, plus new rows.
void populate_b(Store& s) {
  s.upsert_problem(fake_problem(7, 7, 8));  // shifts problem ids against A
  const auto d = s.upsert_device(fake_device(0x8086, 0x56a0, 3, "discrete"));
  const auto d_shared = s.upsert_device(fake_device());
  const auto k = s.upsert_kernel(fake_kernel("q4gsw_tiled[layout=raw,tm=4]"));
  const auto k_new = s.upsert_kernel(fake_kernel("q4gsw_tiled[layout=packed,tm=8]"));
  const auto p = s.upsert_problem(fake_problem(1, 4096, 4096));
  RunRecord r;
  r.uuid = "run-b";
  r.started_at = "2024-07-01T00:00:00Z";
  const auto run = s.begin_run(r);
  s.add_measurement(ok_measurement(run, d, p, k, 800));
  s.add_measurement(ok_measurement(run, d_shared, p, k_new, 500));
  s.put_coverage(testing::coverage(run, d, p, 2, {1}, true));
  s.raise_copy_bandwidth(d, 120.0);
  s.raise_copy_bandwidth(d_shared, 850.5);  // as in A, so row sets compare exactly
}

// Everything of a store as natural-key JSON, minus the derived winners, for set comparison
// (in the version 1 shape: rows of the export refer to entries by index, which differ from
// store to store).
std::set<std::string> rows(const Store& s) {
  const auto doc = testing::v1_document(export_json(s));
  std::set<std::string> out;
  for (const char* section :
       {"devices", "kernels", "problems", "runs", "measurements", "coverage"}) {
    for (const auto& row : doc[section]) out.insert(std::string(section) + row.dump());
  }
  return out;
}

TEST(Merge, ResultIsTheUnion) {
  Store a = Store::open_memory();
  testing::populate(a);
  Store b = Store::open_memory();
  populate_b(b);
  Store c = Store::open_memory();
  c.merge_from(a);
  const ImportStats added = c.merge_from(b);
  EXPECT_EQ(added, (ImportStats{1, 1, 1, 1, 2, 1}));
  std::set<std::string> expected = rows(a);
  const auto from_b = rows(b);
  expected.insert(from_b.begin(), from_b.end());
  EXPECT_EQ(rows(c), expected);
  // The merged `best` sees B's faster kernel on the shared device and problem.
  const auto shared = c.best(1);
  ASSERT_FALSE(shared.empty());
  EXPECT_EQ(shared[0].median_ns, 500);
}

TEST(Merge, IsIdempotent) {
  Store a = Store::open_memory();
  testing::populate(a);
  Store b = Store::open_memory();
  populate_b(b);
  a.merge_from(b);
  const auto once = rows(a);
  EXPECT_EQ(a.merge_from(b), ImportStats{});
  EXPECT_EQ(rows(a), once);
}

TEST(Merge, SelfMergeAddsNothing) {
  Store a = Store::open_memory();
  testing::populate(a);
  const auto before = rows(a);
  EXPECT_EQ(a.merge_from(a), ImportStats{});
  EXPECT_EQ(rows(a), before);
}

TEST(Merge, FillsMissingValuesWithoutOverwriting) {
  Store a = Store::open_memory();
  KernelRecord bare = fake_kernel("k[x=1]");
  bare.spirv.reset();
  a.upsert_kernel(bare);
  const auto dev = a.upsert_device(fake_device());
  Store b = Store::open_memory();
  b.upsert_kernel(fake_kernel("k[x=1]"));
  const auto dev_b = b.upsert_device(fake_device());
  b.raise_copy_bandwidth(dev_b, 99.0);
  a.raise_copy_bandwidth(dev, 11.0);
  a.merge_from(b);
  ASSERT_TRUE(a.kernels()[0].spirv);  // filled
  EXPECT_EQ(a.devices()[0].copy_bandwidth_gbps, 11.0);  // kept
}

TEST(Merge, StoredCoverageWins) {
  // The same run in both stores (a copy taken before the run was resumed), recorded differently.
  Store a = Store::open_memory();
  testing::populate(a, "run-x");
  Store b = Store::open_memory();
  testing::populate(b, "run-x");
  const int64_t run = b.runs()[0].id, device = b.devices()[0].id;
  const int64_t p1 = b.problems()[0].id, p2 = b.problems()[1].id;
  b.put_coverage(testing::coverage(run, device, p1, 7, {2}, true));   // replaces populate's
  b.put_coverage(testing::coverage(run, device, p2, 3, {1}, false));  // new to a
  const auto before = a.coverage();
  EXPECT_EQ(a.merge_from(b).coverage, 1);
  const auto after = a.coverage();
  ASSERT_EQ(after.size(), 3u);
  EXPECT_EQ(after[0], before[0]);  // (device 1, problem 1): a's record, not b's
  EXPECT_EQ(after[1].legal, 3u);   // (device 1, problem 2): b's
  EXPECT_EQ(after[1].measured, 1u);
  EXPECT_EQ(after[2], before[1]);
}

TEST(Merge, FileToFile) {
  testing::TempDir dir;
  {
    Store a = Store::open(dir.file("a.db"));
    testing::populate(a);
    Store b = Store::open(dir.file("b.db"));
    populate_b(b);
  }
  Store c = Store::open(dir.file("c.db"));
  c.merge_from(Store::open(dir.file("a.db"), OpenMode::read_only));
  c.merge_from(Store::open(dir.file("b.db"), OpenMode::read_only));
  EXPECT_EQ(c.devices().size(), 3u);
  EXPECT_EQ(c.measurements().size(), 7u);
}

}  // namespace
}  // namespace vktune::db
