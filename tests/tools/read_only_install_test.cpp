// A database installed the way a system database is shipped: read-only file in a read-only
// directory, read by a user who may write neither. lookup, report and export all read it, and
// nothing is created beside it. Root ignores permission bits, so as root the commands run as
// `nobody` through setpriv; the test is skipped only when that is not possible either.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "tests/tools/report_fixture.h"
#include "tests/tools/run_vktune.h"

namespace vktune::report {
namespace {

using namespace vktune::testing;
namespace fs = std::filesystem;

std::vector<std::string> listing(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir)) names.push_back(entry.path().filename());
  return names;
}

TEST(VktuneReadOnlyInstall, LookupReportAndExportReadIt) {
  TempDir dir;
  const std::string install = dir.file("share");
  fs::create_directory(install);
  const std::string db = install + "/tuned.db";
  {
    db::Store store = db::Store::open(db);
    build_synthetic(store);
  }
  ASSERT_EQ(listing(install), std::vector<std::string>{"tuned.db"}) << "the writer closed cleanly";
  fs::permissions(db, fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
  fs::permissions(install, fs::perms::owner_read | fs::perms::owner_exec | fs::perms::group_read |
                               fs::perms::group_exec | fs::perms::others_read |
                               fs::perms::others_exec);
  // TempDir removes the tree as its owner; give the directory back its write bit first.
  struct Restore {
    std::string path;
    ~Restore() { fs::permissions(path, fs::perms::owner_write, fs::perm_options::add); }
  } restore{install};

  std::string runner;
  if (::geteuid() == 0) {
    runner = "setpriv --reuid=65534 --regid=65534 --clear-groups";
    if (vktune("--version", runner).exit_code != 0) {
      GTEST_SKIP() << "running as root and setpriv cannot drop to nobody: permission bits "
                      "would not apply, so the read-only install cannot be tried";
    }
  }
  const std::string probe = runner + " sh -c " + quoted("touch " + install + "/probe") + " 2>/dev/null";
  ASSERT_NE(std::system(probe.c_str()), 0) << "the directory must really be read-only to this user";

  const std::string quoted_db = quoted(db);
  for (const std::string& args :
       {"lookup --db " + quoted_db +
            " --vendor-id 0x10de --device-id 0x2684 --op q4gsw --m 1 --n 4096 --k 4096 --gs 32",
        "report --db " + quoted_db + " --format md -o -",
        "export --db " + quoted_db + " -o -"}) {
    const VktuneResult r = vktune(args, runner);
    EXPECT_EQ(r.exit_code, 0) << args << "\n" << r.output;
  }
  EXPECT_EQ(listing(install), std::vector<std::string>{"tuned.db"});
}

}  // namespace
}  // namespace vktune::report
