// Reading a database in any form: plain or zstd-compressed, SQLite or JSON, told by content;
// what is not a database (or not a regular file) refused with the file named.
#include "db/database_file.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <zstd.h>

#include "db/error.h"
#include "db/json_io.h"
#include "tests/db/fixtures.h"

namespace vktune::db {
namespace {

using testing::TempDir;

std::vector<uint8_t> bytes_of(const std::string& s) { return {s.begin(), s.end()}; }

std::string compressed(const std::string& data) {
  std::string out(ZSTD_compressBound(data.size()), '\0');
  const size_t n = ZSTD_compress(out.data(), out.size(), data.data(), data.size(), 3);
  EXPECT_FALSE(ZSTD_isError(n));
  out.resize(n);
  return out;
}

std::string error_of(const auto& read) {
  try {
    read();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

class DatabaseFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    {
      Store store = Store::open(dir_.file("a.db"));
      testing::populate(store);
    }
    const std::string text = export_json_text(Store::open(dir_.file("a.db"), OpenMode::read_only));
    testing::write_file(dir_.file("a.json"), text);
    testing::write_file(dir_.file("a.json.zst"), compressed(text));
    testing::write_file(dir_.file("a.db.zst"), compressed(testing::read_file(dir_.file("a.db"))));
    // A name says nothing: a compressed JSON export under a .db name.
    testing::write_file(dir_.file("renamed.db"), compressed(text));
  }

  TempDir dir_;
};

TEST_F(DatabaseFileTest, EveryFormReadsTheSameCatalog) {
  const Catalog expected = read_catalog(dir_.file("a.db"));
  ASSERT_FALSE(expected.winners.empty());
  for (const char* name : {"a.json", "a.json.zst", "a.db.zst", "renamed.db"}) {
    const Catalog got = read_catalog(dir_.file(name));
    EXPECT_EQ(got.winners.size(), expected.winners.size()) << name;
    EXPECT_EQ(got.problems.size(), expected.problems.size()) << name;
    EXPECT_EQ(got.kernels.size(), expected.kernels.size()) << name;
  }
}

TEST_F(DatabaseFileTest, EveryFormOpensAsAStoreWithTheSameRows) {
  const auto rows = [](const Store& s) { return export_json_text(s, -1); };
  const std::string expected = rows(open_for_reading(dir_.file("a.db")));
  for (const char* name : {"a.json", "a.json.zst", "a.db.zst", "renamed.db"}) {
    EXPECT_EQ(rows(open_for_reading(dir_.file(name))), expected) << name;
  }
}

TEST_F(DatabaseFileTest, ContentIsToldBySniffingAndInflating) {
  const std::vector<uint8_t> json = bytes_of(testing::read_file(dir_.file("a.json.zst")));
  const DatabaseContent content = database_content(std::span<const uint8_t>(json), "mem");
  EXPECT_TRUE(content.compressed());
  EXPECT_EQ(content.form(), DatabaseForm::json);
  EXPECT_EQ(std::string(content.text()), testing::read_file(dir_.file("a.json")));

  const DatabaseContent plain = database_content(bytes_of("  {\"x\": 1}"), "mem");
  EXPECT_FALSE(plain.compressed());
  EXPECT_EQ(plain.form(), DatabaseForm::json);
  EXPECT_EQ(plain.text(), "  {\"x\": 1}");
}

TEST_F(DatabaseFileTest, WhatIsNotADatabaseIsRefusedNamingIt) {
  EXPECT_NE(error_of([] { database_content(bytes_of("hello"), "mem.bin"); })
                .find("mem.bin: is neither an SQLite database nor a vktune JSON document"),
            std::string::npos);
  EXPECT_NE(error_of([] { database_content(bytes_of(compressed("hello")), "mem.zst"); })
                .find("mem.zst: decompresses to neither"),
            std::string::npos);
  EXPECT_NE(error_of([] { database_content(bytes_of(compressed(compressed("{}"))), "twice.zst"); })
                .find("twice.zst: a zstd frame inside a zstd frame"),
            std::string::npos);
  // A truncated compressed file: an error naming it, at every reader.
  const std::string whole = testing::read_file(dir_.file("a.db.zst"));
  testing::write_file(dir_.file("cut.db.zst"), whole.substr(0, whole.size() / 2));
  EXPECT_NE(error_of([&] { read_catalog(dir_.file("cut.db.zst")); }).find(dir_.file("cut.db.zst")),
            std::string::npos);
  EXPECT_NE(error_of([&] { open_for_reading(dir_.file("cut.db.zst")); }).find("truncated"),
            std::string::npos);
}

TEST_F(DatabaseFileTest, NonRegularFilesAreRefusedBeforeTheyAreOpened) {
  // Opening a FIFO for reading would block until a writer came; the check comes first.
  ASSERT_EQ(::mkfifo(dir_.file("fifo").c_str(), 0600), 0);
  EXPECT_NE(error_of([&] { read_catalog(dir_.file("fifo")); }).find("not a regular file"),
            std::string::npos);
  EXPECT_NE(error_of([&] { open_for_reading(dir_.file("fifo")); }).find("not a regular file"),
            std::string::npos);
  EXPECT_NE(error_of([&] { read_regular_file(dir_.path().string()); }).find("is a directory"),
            std::string::npos);
  EXPECT_NE(error_of([&] { read_regular_file(dir_.file("missing")); }).find("cannot open it: No such file"),
            std::string::npos);
}

}  // namespace
}  // namespace vktune::db
