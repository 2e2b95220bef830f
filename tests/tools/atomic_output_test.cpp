// Exports and reports replace their output whole or not at all. The file-size limit (ulimit -f)
// stops `vktune export` in the middle of writing: by SIGXFSZ (a kill mid-write) or, with the
// signal ignored, by a failed write. Either way the old output keeps its bytes and nothing is
// left beside it. The temporary file is never a name the user could have given as input. A FIFO
// or a character device is written through, never replaced.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

#include "tests/tools/report_fixture.h"
#include "tests/tools/run_vktune.h"

namespace vktune::report {
namespace {

using namespace vktune::testing;
namespace fs = std::filesystem;

std::string bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

std::vector<std::string> listing(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir)) names.push_back(entry.path().filename());
  std::sort(names.begin(), names.end());
  return names;
}

class VktuneAtomicOutput : public ::testing::Test {
 protected:
  void SetUp() override {
    db::Store store = db::Store::open(db_);
    build_synthetic(store);
  }
  TempDir dir_;
  const std::string db_ = dir_.file("in.db");
  const std::string out_ = dir_.file("out.json");
};

TEST_F(VktuneAtomicOutput, AnExportStoppedMidWriteLeavesTheOldFileAndNothingElse) {
  std::ofstream(out_) << "old export\n";
  // 1 block of the limit is 512 or 1024 bytes; the export is several times that.
  for (const std::string& runner : {std::string("ulimit -f 1;"), std::string("trap '' XFSZ; ulimit -f 1;")}) {
    const VktuneResult r = vktune("export --db " + quoted(db_) + " -o " + quoted(out_), runner);
    EXPECT_NE(r.exit_code, 0) << runner << "\n" << r.output;
    EXPECT_EQ(bytes(out_), "old export\n") << runner;
    EXPECT_EQ(listing(dir_.file("")), (std::vector<std::string>{"in.db", "out.json"})) << runner;
  }
  const VktuneResult r = vktune("export --db " + quoted(db_) + " -o " + quoted(out_));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_GT(bytes(out_).size(), 1024u) << "the export must be larger than the limit above";
}

TEST_F(VktuneAtomicOutput, TheTemporaryFileIsNoNameBesideTheOutput) {
  for (const char* suffix : {".tmp", "~", ".new"}) {
    const std::string input = out_ + suffix;
    fs::copy_file(db_, input, fs::copy_options::overwrite_existing);
    const std::string before = bytes(input);
    const VktuneResult r = vktune("export --db " + quoted(input) + " -o " + quoted(out_));
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_EQ(bytes(input), before) << suffix;
  }
}

// A kill between linking the temporary under its hidden name and renaming it leaves that name;
// the next write of the same output removes it, and only names of processes that are gone.
TEST_F(VktuneAtomicOutput, AHiddenNameAKilledWriterLeftIsRemovedByTheNextWrite) {
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) ::_exit(0);
  ASSERT_EQ(::waitpid(child, nullptr, 0), child);  // reaped: its pid names no process now
  const std::string dead = ".out.json." + std::to_string(child) + ".tmp";
  const std::string live = ".out.json." + std::to_string(::getpid()) + ".tmp";
  for (const std::string& name : {dead, live, std::string(".out.json.x1.tmp")}) {
    std::ofstream(dir_.file(name)) << "partial";
  }
  const VktuneResult r = vktune("export --db " + quoted(db_) + " -o " + quoted(out_));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::vector<std::string> expected{live, ".out.json.x1.tmp", "in.db", "out.json"};
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(listing(dir_.file("")), expected);
}

TEST_F(VktuneAtomicOutput, AReportThroughASymlinkReplacesTheFileItNames) {
  const std::string page = dir_.file("page.md");
  std::ofstream(page) << "old page\n";
  fs::create_symlink(page, dir_.file("link.md"));
  const VktuneResult r =
      vktune("report --db " + quoted(db_) + " --format md -o " + quoted(dir_.file("link.md")));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(fs::is_symlink(dir_.file("link.md")));
  EXPECT_NE(bytes(page), "old page\n");
  EXPECT_EQ(bytes(page), bytes(dir_.file("link.md")));
}

// Every command that writes a report file writes into a FIFO as into standard output, and the
// FIFO stays one.
TEST_F(VktuneAtomicOutput, AFifoIsWrittenThroughNotReplaced) {
  const std::string fifo = dir_.file("pipe");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const VktuneResult expected = vktune("report --db " + quoted(db_) + " --format txt -o -", "", "");
  ASSERT_EQ(expected.exit_code, 0) << expected.output;
  for (const std::string& args : {"report --db " + quoted(db_) + " --format txt -o " + quoted(fifo),
                                  "export --db " + quoted(db_) + " -o " + quoted(fifo)}) {
    std::string read;
    std::thread reader([&] { read = bytes(fifo); });
    const VktuneResult r = vktune(args);
    reader.join();
    EXPECT_EQ(r.exit_code, 0) << args << "\n" << r.output;
    struct stat st {};
    ASSERT_EQ(::stat(fifo.c_str(), &st), 0);
    EXPECT_TRUE(S_ISFIFO(st.st_mode)) << args;
    if (args.starts_with("report")) {
      EXPECT_EQ(read, expected.output);
    } else {
      EXPECT_NE(read.find("\"format\""), std::string::npos) << read;
    }
  }
}

// A character device (a null device made in the test's directory: only root may make one) takes
// the bytes and stays a device; before, the rename put a regular file in its place.
TEST_F(VktuneAtomicOutput, ACharacterDeviceIsWrittenThroughNotReplaced) {
  const std::string node = dir_.file("null");
  if (::mknod(node.c_str(), S_IFCHR | 0666, makedev(1, 3)) != 0) {
    GTEST_SKIP() << "mknod needs root here";
  }
  fs::create_symlink(node, dir_.file("link"));
  for (const std::string& out : {node, dir_.file("link")}) {
    for (const std::string& args : {"report --db " + quoted(db_) + " --format txt -o " + quoted(out),
                                    "export --db " + quoted(db_) + " -o " + quoted(out)}) {
      const VktuneResult r = vktune(args);
      EXPECT_EQ(r.exit_code, 0) << args << "\n" << r.output;
      struct stat st {};
      ASSERT_EQ(::stat(node.c_str(), &st), 0);
      EXPECT_TRUE(S_ISCHR(st.st_mode)) << args;
    }
  }
  EXPECT_EQ(listing(dir_.file("")), (std::vector<std::string>{"in.db", "link", "null"}));
}

}  // namespace
}  // namespace vktune::report
