// Schema creation and forward migration from the previous version.
#include "db/schema.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include "db/error.h"
#include "db/open.h"
#include "db/store.h"
#include "tests/db/fixtures.h"

namespace vktune::db {
namespace {

using testing::TempDir;

TEST(Schema, FreshMemoryDatabaseIsAtCurrentVersion) {
  Connection c = open_memory();
  EXPECT_EQ(schema_version(c), kSchemaVersion);
  EXPECT_EQ(c.query_int("PRAGMA foreign_keys"), 1);
  for (const char* table : {"devices", "kernels", "problems", "runs", "measurements"}) {
    Statement s(c, "SELECT count(*) AS n FROM sqlite_schema WHERE type = 'table' AND name = :t");
    s.bind(":t", table);
    ASSERT_TRUE(s.step());
    EXPECT_EQ(s.integer("n"), 1) << table;
  }
  EXPECT_EQ(c.query_int("SELECT count(*) FROM sqlite_schema WHERE type = 'view' AND name = 'best'"), 1);
}

TEST(Schema, FileDatabaseUsesWal) {
  TempDir dir;
  Store s = Store::open(dir.file("a.db"));
  EXPECT_EQ(s.connection().query_text("PRAGMA journal_mode"), "wal");
}

TEST(Schema, StatusCheckConstraintRejectsUnknownStatus) {
  Store s = Store::open_memory();
  testing::populate(s);
  EXPECT_THROW(s.connection().exec("UPDATE measurements SET status = 'great' WHERE id = 1"), Error);
}

TEST(Schema, ForeignKeysAreEnforced) {
  Store s = Store::open_memory();
  EXPECT_THROW(s.add_measurement(testing::ok_measurement(9, 9, 9, 9, 1.0)), Error);
}

TEST(Schema, MigratesVersion1FileForwardKeepingData) {
  TempDir dir;
  const std::string path = dir.file("v1.db");
  {
    // Build a version-1 database as an older vktune would have left it.
    Connection c = Connection::open(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, path);
    migrate(c, 1);
    ASSERT_EQ(schema_version(c), 1);
    c.exec(testing::kOldDatabaseRows);
    c.exec(R"sql(
      INSERT INTO runs (uuid, started_at) VALUES ('r2', '2024-01-02T00:00:00Z');
      INSERT INTO measurements (run_id, device_id, problem_id, kernel_id, status)
        VALUES (2, 1, 1, 1, 'wrong_result');
    )sql");
  }
  Store s = Store::open(path);
  EXPECT_EQ(schema_version(s.connection()), kSchemaVersion);
  ASSERT_EQ(s.devices().size(), 1u);
  EXPECT_EQ(s.devices()[0].name, "Old GPU");
  EXPECT_FALSE(s.devices()[0].copy_bandwidth_gbps.has_value());  // the v2 column, NULL
  s.raise_copy_bandwidth(1, 400.0);
  EXPECT_EQ(s.devices()[0].copy_bandwidth_gbps, 400.0);
  EXPECT_EQ(s.measurements().size(), 2u);
  EXPECT_EQ(s.kernels()[0].specialization_json, "[]");  // v6: sizes were compiled in
  // v2's `best` refuses a kernel that ever gave a wrong result (v1's did not).
  EXPECT_TRUE(s.best(1).empty());
  EXPECT_EQ(s.connection().query_int(
                "SELECT count(*) FROM sqlite_schema WHERE name = 'measurements_by_triple'"),
            1);
}

// A read-only open of a version-4 file (an earlier build's, say one tuned on another machine
// and merged here) reads it at the current schema, through a migrated private copy: v5's `best`
// takes the kernel's latest time, the file keeps its bytes and version, writes are refused.
TEST(Schema, ReadOnlyOpenOfAnOlderFileReadsItMigrated) {
  TempDir dir;
  const std::string path = dir.file("v4.db");
  {
    Connection c = Connection::open(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, path);
    migrate(c, 4);
    c.exec(testing::kOldDatabaseRows);
    c.exec(R"sql(
      INSERT INTO runs (uuid, started_at) VALUES ('r2', '2024-01-02T00:00:00Z');
      INSERT INTO measurements (run_id, device_id, problem_id, kernel_id, status, median_ns)
        VALUES (2, 1, 1, 1, 'ok', 150.0);
    )sql");
  }
  const std::string before = testing::read_file(path);
  {
    Store s = Store::open(path, OpenMode::read_only);
    EXPECT_EQ(schema_version(s.connection()), kSchemaVersion);
    ASSERT_EQ(s.best(1).size(), 1u);
    EXPECT_EQ(s.best(1)[0].median_ns, 150.0);  // run 2's, not the faster 123 of run 1
    EXPECT_THROW(s.upsert_problem(testing::fake_problem(9, 9, 9)), Error);
  }
  EXPECT_EQ(testing::read_file(path), before);
  Connection file = Connection::open(path, SQLITE_OPEN_READONLY, path);
  EXPECT_EQ(schema_version(file), 4);
}

// Version 4 rebuilds `problems` with sdpa's head counts in the key: ids (and so every
// measurement's problem) survive, the old problems get 0 heads, and two problems that differ
// only in their heads are two rows.
TEST(Schema, Version4KeysProblemsByHeadsKeepingIds) {
  TempDir dir;
  const std::string path = dir.file("v3.db");
  {
    Connection c = Connection::open(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, path);
    c.exec("PRAGMA foreign_keys = ON");
    migrate(c, 3);
    c.exec(testing::kOldDatabaseRows);
  }
  Store s = Store::open(path);
  EXPECT_EQ(schema_version(s.connection()), kSchemaVersion);
  EXPECT_EQ(s.connection().query_int("PRAGMA foreign_keys"), 1);  // on again after the rebuild
  ASSERT_EQ(s.measurements().size(), 1u);
  const int64_t old_problem = s.measurements()[0].problem_id;
  EXPECT_EQ(s.connection().query_int("SELECT heads + kv_heads FROM problems WHERE id = " +
                                     std::to_string(old_problem)),
            0);
  Problem a{0, "sdpa", "f32", 1, 512, 128, 0, 32, 8};
  Problem b = a;
  b.heads = 24;
  const int64_t ia = s.upsert_problem(a), ib = s.upsert_problem(b);
  EXPECT_NE(ia, ib);
  EXPECT_EQ(s.upsert_problem(a), ia);
  EXPECT_THROW(s.add_measurement(testing::ok_measurement(1, 1, 999, 1, 1.0)), Error);  // FKs hold
}

TEST(Schema, RefusesToDowngrade) {
  Connection c = open_memory();
  EXPECT_THROW(migrate(c, 1), Error);
}

}  // namespace
}  // namespace vktune::db
