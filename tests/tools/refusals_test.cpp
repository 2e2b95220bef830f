// Commands that would damage a database are refused and leave it, and the disk, as they were:
// an output that is the input (by any path), a merge of another application's file, an import
// that fails after creating its database.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "tests/tools/report_fixture.h"
#include "tests/tools/run_vktune.h"

namespace vktune::report {
namespace {

using namespace vktune::testing;

TEST(VktuneRefusals, RefusesToWriteOverTheDatabaseItReads) {
  TempDir dir;
  const std::string db = dir.file("m.db");
  {
    db::Store store = db::Store::open(db);
    build_synthetic(store);
  }
  std::filesystem::create_symlink(db, dir.file("link.db"));
  const auto bytes = [&] {
    std::ifstream in(db, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  const std::string before = bytes();
  for (const std::string& args :
       {"export --db " + quoted(db) + " -o " + quoted(db),
        "export --db " + quoted(db) + " -o " + quoted(dir.file("link.db")),
        "report --db " + quoted(db) + " --format html -o " + quoted(db),
        "merge " + quoted(db) + " -o " + quoted(dir.file("link.db")),
        // The bench's table and its own measurements go elsewhere than what it reads: before,
        // --markdown replaced the database with a table and --save added the re-timings to it.
        "bench --db " + quoted(db) + " --markdown " + quoted(db),
        "bench --db " + quoted(db) + " --markdown " + quoted(dir.file("link.db")),
        "bench --db " + quoted(db) + " --save " + quoted(db),
        "bench --db " + quoted(db) + " --save " + quoted(dir.file("link.db")),
        "import " + quoted(db) + " --db " + quoted(dir.file("link.db"))}) {
    const VktuneResult r = vktune(args);
    EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.output;
    EXPECT_NE(r.output.find("being read"), std::string::npos) << r.output;
  }
  EXPECT_EQ(bytes(), before);
}

// An output is refused when it is any file the command reads, by inode: a hard link to the
// shapes file is the shapes file.
TEST(VktuneRefusals, RefusesToWriteOverAShapesFileItReads) {
  TempDir dir;
  const std::string db = dir.file("m.db");
  {
    db::Store store = db::Store::open(db);
    build_synthetic(store);
  }
  const std::string shapes = dir.file("s.json");
  std::ofstream(shapes) << R"({"problems": [{"op": "q4gsw", "n": 64, "k": 64, "gs": 32}]})";
  std::filesystem::create_hard_link(shapes, dir.file("hard.json"));
  for (const std::string& args :
       {"bench --db " + quoted(db) + " --shapes " + quoted(shapes) + " --markdown " +
            quoted(dir.file("hard.json")),
        "tune --shapes " + quoted(shapes) + " --db " + quoted(dir.file("hard.json"))}) {
    const VktuneResult r = vktune(args);
    EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.output;
    EXPECT_NE(r.output.find("is the same file as " + shapes), std::string::npos) << r.output;
  }
}

// A merge of another application's SQLite file is refused before anything is created, and an
// import of a broken document removes the database it had just created: no output is left.
TEST(VktuneRefusals, FailedCreateLeavesNoOutput) {
  TempDir dir;
  const std::string foreign = dir.file("notes.db");
  {
    db::Connection c = db::Connection::open(foreign, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, foreign);
    c.exec("CREATE TABLE notes (body TEXT)");
  }
  const std::string merged = dir.file("merged.db");
  const VktuneResult merge = vktune("merge " + quoted(foreign) + " -o " + quoted(merged));
  EXPECT_EQ(merge.exit_code, 1) << merge.output;
  EXPECT_NE(merge.output.find("not a vktune one"), std::string::npos) << merge.output;
  EXPECT_FALSE(std::filesystem::exists(merged));

  const std::string broken = dir.file("broken.json");
  std::ofstream(broken) << "{\"format\": \"vktune-db\", \"version\": 2, \"devices\": [";
  const std::string imported = dir.file("imported.db");
  const VktuneResult import = vktune("import " + quoted(broken) + " --db " + quoted(imported));
  EXPECT_EQ(import.exit_code, 1) << import.output;
  EXPECT_NE(import.output.find(broken), std::string::npos) << import.output;
  for (const char* suffix : {"", "-wal", "-shm"}) {
    EXPECT_FALSE(std::filesystem::exists(imported + suffix)) << imported + suffix;
  }
}

}  // namespace
}  // namespace vktune::report
