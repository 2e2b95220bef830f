// Refusing bad files: corrupt, truncated, newer-version, foreign SQLite and non-SQLite files
// all fail with a message naming the file and the problem, and are left untouched.
#include "db/open.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>

#include "db/error.h"
#include "db/store.h"
#include "tests/db/fixtures.h"

namespace vktune::db {
namespace {

using testing::read_file;
using testing::TempDir;
using testing::write_file;

// Opens `path` expecting an Error whose message names the file and contains `needle`.
void expect_refused(const std::string& path, const std::string& needle,
                    OpenMode mode = OpenMode::read_write) {
  try {
    Store::open(path, mode);
    FAIL() << "opened " << path;
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(path), std::string::npos) << what;
    EXPECT_NE(what.find(needle), std::string::npos) << what;
  }
}

// A database with enough rows to span several pages, checkpointed into the main file.
std::string make_database(const TempDir& dir) {
  const std::string path = dir.file("good.db");
  Store s = Store::open(path);
  testing::populate(s);
  for (uint32_t i = 1; i <= 300; ++i) s.upsert_problem(testing::fake_problem(i, 4096, 4096));
  s.connection().exec("PRAGMA wal_checkpoint(TRUNCATE); PRAGMA journal_mode = DELETE");
  return path;
}

TEST(Open, NonSqliteFileIsRefusedAndUntouched) {
  TempDir dir;
  const std::string path = dir.file("notes.db");
  const std::string text(4096, 'x');
  write_file(path, text);
  expect_refused(path, "not an SQLite database");
  EXPECT_EQ(read_file(path), text);
}

TEST(Open, TinyNonSqliteFileIsRefused) {
  TempDir dir;
  const std::string path = dir.file("tiny.db");
  write_file(path, "{\"format\":1}");
  expect_refused(path, "not an SQLite database");
}

TEST(Open, TruncatedFileIsRefused) {
  TempDir dir;
  const std::string good = make_database(dir);
  const std::string bytes = read_file(good);
  ASSERT_GT(bytes.size(), 8192u);
  const std::string path = dir.file("truncated.db");
  write_file(path, bytes.substr(0, bytes.size() / 2));
  expect_refused(path, "truncated");
  write_file(path, bytes.substr(0, 50));  // inside the header
  expect_refused(path, "truncated");
}

TEST(Open, CorruptPagesAreRefused) {
  TempDir dir;
  const std::string good = make_database(dir);
  std::string bytes = read_file(good);
  // Scribble over every page after the first (the header and schema stay readable).
  for (size_t i = 4096; i < bytes.size(); i += 7) bytes[i] = static_cast<char>(i * 31);
  const std::string path = dir.file("corrupt.db");
  write_file(path, bytes);
  expect_refused(path, "corrupt");
  EXPECT_EQ(read_file(path), bytes);
}

TEST(Open, CorruptHeaderPageSizeIsRefused) {
  TempDir dir;
  std::string bytes = read_file(make_database(dir));
  bytes[16] = 0x03;  // page size 0x03xx is not a power of two
  bytes[17] = 0x01;
  const std::string path = dir.file("badheader.db");
  write_file(path, bytes);
  expect_refused(path, "corrupt");
}

TEST(Open, NewerSchemaVersionIsRefused) {
  TempDir dir;
  const std::string path = make_database(dir);
  {
    Store s = Store::open(path);
    s.connection().exec("PRAGMA user_version = 99");
  }
  expect_refused(path, "schema version 99 is newer");
  expect_refused(path, "use a newer vktune", OpenMode::read_only);
}

TEST(Open, ForeignSqliteDatabaseIsNotModified) {
  TempDir dir;
  const std::string path = dir.file("other.db");
  {
    Connection c = Connection::open(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, path);
    c.exec("CREATE TABLE notes (body TEXT)");
  }
  const std::string before = read_file(path);
  expect_refused(path, "not a vktune one");
  EXPECT_EQ(read_file(path), before);
}

TEST(Open, ReadOnlyNeedsAnExistingFile) {
  TempDir dir;
  expect_refused(dir.file("missing.db"), "no such database file", OpenMode::read_only);
}

// An empty file has no schema to read; a read-only open refuses it rather than inventing one.
TEST(Open, ReadOnlyRefusesAnEmptyFile) {
  TempDir dir;
  const std::string path = dir.file("empty.db");
  write_file(path, "");
  expect_refused(path, "no vktune schema yet", OpenMode::read_only);
  EXPECT_EQ(read_file(path), "");
}

TEST(Open, ReadOnlyRefusesWrites) {
  TempDir dir;
  const std::string path = make_database(dir);
  Store s = Store::open(path, OpenMode::read_only);
  EXPECT_EQ(s.devices().size(), 2u);
  EXPECT_THROW(s.upsert_problem(testing::fake_problem(9, 9, 9)), Error);
}

bool has_side_files(const std::string& path) {
  return std::filesystem::exists(path + "-wal") || std::filesystem::exists(path + "-shm");
}

// A reader creates nothing beside the database: a closed WAL database has no -wal or -shm, and
// a read-only open must not make them (SQLite's WAL reader would create both). With a writer
// open (its -wal present), a reader goes through the WAL and sees its commits.
TEST(Open, ReadOnlyOpenCreatesNoSideFilesAndSeesAWritersCommits) {
  TempDir dir;
  const std::string path = dir.file("shared.db");
  {
    Store writer = Store::open(path);
    testing::populate(writer);
    ASSERT_TRUE(std::filesystem::exists(path + "-wal"));
    EXPECT_EQ(Store::open(path, OpenMode::read_only).devices().size(), 2u);
  }
  ASSERT_FALSE(has_side_files(path)) << "the last writer's close removes them";
  {
    const Store reader = Store::open(path, OpenMode::read_only);
    EXPECT_EQ(reader.devices().size(), 2u);
    EXPECT_FALSE(has_side_files(path));
  }
  EXPECT_FALSE(has_side_files(path));
}

TEST(Open, ImageOpensACopy) {
  TempDir dir;
  const std::string bytes = read_file(make_database(dir));
  std::vector<uint8_t> image(bytes.begin(), bytes.end());
  Store s = Store::open_image(image, "image");
  EXPECT_EQ(s.devices().size(), 2u);
  image.resize(image.size() / 2);
  EXPECT_THROW(Store::open_image(image, "half"), Error);
  EXPECT_THROW(Store::open_image({}, "empty"), Error);
}

}  // namespace
}  // namespace vktune::db
