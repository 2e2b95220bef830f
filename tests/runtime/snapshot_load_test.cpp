// Snapshot::load from a .db file and from an exported JSON document (detected by content),
// and clear errors for files that are neither.
#include "runtime/snapshot.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "db/json_io.h"

#include <nlohmann/json.hpp>
#include "tests/runtime/fake_catalog.h"

namespace vktune::runtime {
namespace {

using testing::FakeDb;
using testing::q4;
using testing::query_for;
using testing::TempDir;
using testing::write_file;

std::shared_ptr<const Snapshot> load_expect_ok(const std::string& path) {
  std::string error;
  auto s = Snapshot::load(path, &error);
  EXPECT_TRUE(s) << error;
  return s;
}

std::string load_expect_error(const std::string& path) {
  std::string error;
  EXPECT_FALSE(Snapshot::load(path, &error));
  EXPECT_NE(error.find(path), std::string::npos) << error;
  return error;
}

void expect_same_answers(const Snapshot& x, const Snapshot& y, const FakeDb& db) {
  for (const auto& dev : {db.a, db.a_old, db.b, db.c}) {
    for (const auto& p : {q4(1, 4096, 4096), q4(16, 1024, 1024), q4(3, 333, 4096), q4(64, 4096, 4096)}) {
      const Selection s = x.select(query_for(dev), p);
      const Selection t = y.select(query_for(dev), p);
      EXPECT_EQ(s.variant_key, t.variant_key);
      EXPECT_EQ(s.device_match, t.device_match);
      EXPECT_EQ(s.shape_match, t.shape_match);
      EXPECT_EQ(s.median_ns, t.median_ns);
      EXPECT_EQ(s.spirv.size(), t.spirv.size());
      EXPECT_TRUE(std::ranges::equal(s.specialization, t.specialization)) << s.variant_key;
    }
  }
}

TEST(SnapshotLoad, DatabaseAndJsonGiveTheSameAnswers) {
  TempDir dir;
  FakeDb db;
  const std::string db_path = dir.file("k.db");
  {
    db::Store file = db::Store::open(db_path);
    file.merge_from(db.store);
  }
  const std::string json_path = dir.file("k.json");
  write_file(json_path, "\n  " + db::export_json_text(db.store));
  const auto from_db = load_expect_ok(db_path);
  const auto from_json = load_expect_ok(json_path);
  ASSERT_TRUE(from_db && from_json);
  EXPECT_EQ(from_db->device_count(), 4u);
  EXPECT_EQ(from_db->winner_count(), 7u);
  EXPECT_EQ(from_json->winner_count(), 7u);
  expect_same_answers(*from_db, *from_json, db);
  expect_same_answers(*from_db, *db.snapshot(), db);
  // The tiled winner's SPIR-V comes with the specialisation stored beside it, in a version 3
  // document (one a reader of version 2 refuses rather than run at default sizes).
  EXPECT_EQ(nlohmann::json::parse(db::export_json_text(db.store))["version"], 3);
  const Selection tiled = from_json->select(query_for(db.a), q4(64, 4096, 4096));
  ASSERT_EQ(tiled.variant_key, "q4gsw_tiled[layout=packed,tm=8,tn=4,wg=128,bk=32]");
  EXPECT_EQ(Specialization(tiled.specialization.begin(), tiled.specialization.end()),
            (Specialization{{0, 128}, {1, 8}, {2, 4}, {3, 32}}));
  // Winners-only exports, and documents in the version 1 layout, give the same answers.
  const std::string winners_path = dir.file("k.winners.json");
  write_file(winners_path, db::export_json_text(db.store, -1, db::ExportScope::winners));
  const std::string v1_path = dir.file("k.v1.json");
  write_file(v1_path, testing::v1_document(db::export_json(db.store, db::ExportScope::winners)).dump());
  for (const auto& path : {winners_path, v1_path}) {
    const auto from_file = load_expect_ok(path);
    ASSERT_TRUE(from_file);
    EXPECT_EQ(from_file->winner_count(), 7u);
    expect_same_answers(*from_db, *from_file, db);
  }
}

// A document exported before kernels had specialisation constants (version 2, no such field)
// loads, its kernels without any.
TEST(SnapshotLoad, VersionTwoDocumentLoads) {
  TempDir dir;
  FakeDb db;
  nlohmann::json doc = db::export_json(db.store);
  doc["version"] = 2;
  for (nlohmann::json& k : doc["kernels"]) k.erase("specialization_json");
  const std::string path = dir.file("before.json");
  write_file(path, doc.dump());
  const auto snap = load_expect_ok(path);
  ASSERT_TRUE(snap);
  EXPECT_EQ(snap->winner_count(), 7u);
  const Selection tiled = snap->select(query_for(db.a), q4(64, 4096, 4096));
  EXPECT_EQ(tiled.variant_key, "q4gsw_tiled[layout=packed,tm=8,tn=4,wg=128,bk=32]");
  EXPECT_TRUE(tiled.specialization.empty());
}

TEST(SnapshotLoad, SnapshotOutlivesTheFile) {
  TempDir dir;
  FakeDb db;
  const std::string path = dir.file("k.json");
  write_file(path, db::export_json_text(db.store));
  const auto snap = load_expect_ok(path);
  std::filesystem::remove(path);
  EXPECT_EQ(snap->select(query_for(db.a), q4(1, 4096, 4096)).median_ns, 1000.0);
}

TEST(SnapshotLoad, RejectsFilesThatAreNeither) {
  TempDir dir;
  const std::string path = dir.file("x.bin");
  write_file(path, "\x7f" "ELF not a database");
  EXPECT_NE(load_expect_error(path).find("neither an SQLite database nor"), std::string::npos);
  write_file(path, "");
  EXPECT_NE(load_expect_error(path).find("neither"), std::string::npos);
  EXPECT_NE(load_expect_error(dir.file("missing.db")).find("cannot open"), std::string::npos);
}

TEST(SnapshotLoad, RejectsBrokenJsonWithTheFieldPath) {
  TempDir dir;
  FakeDb db;
  auto doc = db::export_json(db.store);
  doc["winners"][0][4] = "slow";  // median_ns
  const std::string path = dir.file("bad.json");
  write_file(path, doc.dump());
  EXPECT_NE(load_expect_error(path).find("winners[0][4]: median_ns"), std::string::npos);
  doc = db::export_json(db.store);
  doc["winners"][1][2] = 9999;  // kernel
  write_file(path, doc.dump());
  EXPECT_NE(load_expect_error(path).find("winners[1][2]: kernel index 9999 out of range"),
            std::string::npos);
  auto v1 = testing::v1_document(db::export_json(db.store));
  v1["winners"][0]["median_ns"] = "slow";
  write_file(path, v1.dump());
  EXPECT_NE(load_expect_error(path).find("winners[0].median_ns"), std::string::npos);
  write_file(path, "{\"format\":\"vktune-db\",");
  EXPECT_NE(load_expect_error(path).find("not valid JSON"), std::string::npos);
}

TEST(SnapshotLoad, RejectsCorruptAndNewerDatabases) {
  TempDir dir;
  FakeDb db;
  const std::string path = dir.file("k.db");
  {
    db::Store file = db::Store::open(path);
    file.merge_from(db.store);
    file.connection().exec("PRAGMA user_version = 7");
  }
  EXPECT_NE(load_expect_error(path).find("newer"), std::string::npos);
  std::string bytes = testing::read_file(path);
  write_file(path, bytes.substr(0, 60));
  EXPECT_NE(load_expect_error(path).find("truncated"), std::string::npos);
}

// The load skips the up-front quick_check pass (IntegrityCheck::on_read): damage to a table it
// reads must still fail the load, not give wrong answers.
TEST(SnapshotLoad, RejectsADamagedTablePage) {
  TempDir dir;
  FakeDb db;
  const std::string path = dir.file("k.db");
  int64_t page_size = 0, root = 0;
  {
    db::Store file = db::Store::open(path);
    file.merge_from(db.store);
    page_size = file.connection().query_int("PRAGMA page_size");
    root = file.connection().query_int("SELECT rootpage FROM sqlite_schema WHERE name = 'measurements'");
  }
  ASSERT_TRUE(load_expect_ok(path));
  std::string bytes = testing::read_file(path);
  ASSERT_GT(root, 1);
  ASSERT_LE(root * page_size, static_cast<int64_t>(bytes.size()));
  bytes[static_cast<size_t>((root - 1) * page_size)] = '\x00';  // b-tree page type: invalid
  write_file(path, bytes);
  EXPECT_NE(load_expect_error(path).find("malformed"), std::string::npos);
}

TEST(SnapshotLoad, RejectsBadSpecialisationAtBuildTime) {
  db::Catalog c;
  db::KernelRecord k = testing::fake_kernel("x[a=1]");
  k.id = 1;
  k.specialization_json = "[[2,64],[1,4]]";
  c.kernels.push_back(k);
  std::string error;
  EXPECT_FALSE(Snapshot::from_catalog(c, &error));
  EXPECT_NE(error.find("specialization_json[1]: constant_id 1"), std::string::npos) << error;
}

TEST(SnapshotLoad, RejectsBadConstraintsAtBuildTime) {
  db::Catalog c;
  db::KernelRecord k = testing::fake_kernel("x[a=1]", R"({"k_multiple":"eight"})");
  k.id = 1;
  c.kernels.push_back(k);
  std::string error;
  EXPECT_FALSE(Snapshot::from_catalog(c, &error));
  EXPECT_NE(error.find("constraints_json.k_multiple"), std::string::npos) << error;
}

}  // namespace
}  // namespace vktune::runtime
