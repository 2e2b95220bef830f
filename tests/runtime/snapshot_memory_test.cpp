// Snapshot::load_memory: a .db image or a JSON document from bytes (an application's asset)
// answers as the file does, and a truncated or damaged buffer is an error, never a crash.
#include "runtime/snapshot.h"

#include <gtest/gtest.h>

#include <random>

#include "db/json_io.h"
#include "tests/runtime/fake_catalog.h"

namespace vktune::runtime {
namespace {

using testing::FakeDb;
using testing::q4;
using testing::query_for;

std::span<const uint8_t> bytes_of(const std::string& s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

// The fake database as a .db file's bytes.
std::string db_image(const FakeDb& db) {
  testing::TempDir dir;
  const std::string path = dir.file("k.db");
  {
    db::Store file = db::Store::open(path);
    file.merge_from(db.store);
  }
  return testing::read_file(path);
}

TEST(SnapshotMemory, DbImageAndJsonAnswerAsTheFileDoes) {
  FakeDb db;
  const auto expected = db.snapshot();
  for (const std::string& bytes : {db_image(db), db::export_json_text(db.store)}) {
    std::string error;
    const auto snap = Snapshot::load_memory(bytes_of(bytes), "asset:kernels", &error);
    ASSERT_TRUE(snap) << error;
    EXPECT_EQ(snap->source(), "asset:kernels");
    for (const auto& p : {q4(1, 4096, 4096), q4(16, 1024, 1024), q4(64, 4096, 4096)}) {
      const Selection got = snap->select(query_for(db.a), p);
      const Selection want = expected->select(query_for(db.a), p);
      EXPECT_EQ(got.variant_key, want.variant_key);
      EXPECT_EQ(got.shape_match, want.shape_match);
      EXPECT_EQ(got.median_ns, want.median_ns);
      EXPECT_EQ(got.source, "asset:kernels");
    }
  }
}

TEST(SnapshotMemory, TruncatedBuffersAreErrorsNamingTheAsset) {
  FakeDb db;
  for (const std::string& whole : {db_image(db), db::export_json_text(db.store)}) {
    // Every cut of the first 64 bytes (the headers), then cuts spread over the rest.
    std::vector<size_t> cuts;
    for (size_t n = 0; n < 64; ++n) cuts.push_back(n);
    for (size_t n = 64; n < whole.size(); n += whole.size() / 97 + 1) cuts.push_back(n);
    for (const size_t n : cuts) {
      std::string error;
      const auto snap = Snapshot::load_memory(bytes_of(whole).first(n), "asset", &error);
      EXPECT_FALSE(snap) << n << " of " << whole.size() << " bytes loaded";
      EXPECT_EQ(error.rfind("asset", 0), 0u) << error;
    }
  }
}

TEST(SnapshotMemory, CorruptedBytesNeverCrash) {
  FakeDb db;
  std::mt19937 rng(5);
  for (const std::string& whole : {db_image(db), db::export_json_text(db.store)}) {
    std::uniform_int_distribution<size_t> at(0, whole.size() - 1);
    for (int i = 0; i < 200; ++i) {
      std::string bytes = whole;
      for (int flips = 0; flips < 4; ++flips) bytes[at(rng)] = static_cast<char>(rng());
      std::string error;
      // Either loads (a flip in unused space) or fails with a message; both are fine.
      const auto snap = Snapshot::load_memory(bytes_of(bytes), "asset", &error);
      if (snap) (void)snap->select(query_for(db.a), q4(1, 4096, 4096));
      else EXPECT_FALSE(error.empty());
    }
  }
  std::string error;
  EXPECT_FALSE(Snapshot::load_memory({}, "empty", &error));
  EXPECT_NE(error.find("neither an SQLite database nor a vktune JSON document"), std::string::npos)
      << error;
}

}  // namespace
}  // namespace vktune::runtime
