// A full disk under an existing database is reported as a full disk, not as a corrupt file: on
// a small tmpfs (mounting one needs root; skipped otherwise) filled to the last block.
#include <gtest/gtest.h>
#include <sys/mount.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "db/error.h"
#include "db/store.h"
#include "tests/db/fixtures.h"

namespace vktune::db {
namespace {

using testing::TempDir;

// A tmpfs of `size` mounted over `dir` while it lives.
class SmallDisk {
 public:
  SmallDisk(const std::string& dir, const char* size) : dir_(dir) {
    const std::string options = std::string("size=") + size;
    mounted_ = ::mount("tmpfs", dir.c_str(), "tmpfs", 0, options.c_str()) == 0;
    if (!mounted_) error_ = std::strerror(errno);
  }
  ~SmallDisk() {
    if (mounted_) ::umount2(dir_.c_str(), MNT_DETACH);
  }
  SmallDisk(const SmallDisk&) = delete;
  SmallDisk& operator=(const SmallDisk&) = delete;
  bool mounted() const { return mounted_; }
  const std::string& error() const { return error_; }

 private:
  std::string dir_;
  bool mounted_ = false;
  std::string error_;
};

// Writes zeros to `path` until the disk refuses another block.
void fill(const std::string& path) {
  std::ofstream out(path, std::ios::binary);
  const std::vector<char> block(4096, 0);
  while (out.write(block.data(), block.size()) && out.flush()) {
  }
}

TEST(FullDisk, AnExistingDatabaseOnAFullDiskIsReportedAsAFullDisk) {
  TempDir dir;
  const SmallDisk disk(dir.path().string(), "512k");
  if (!disk.mounted()) GTEST_SKIP() << "cannot mount a tmpfs here: " << disk.error();
  const std::string path = dir.file("tuned.db");
  {
    Store s = Store::open(path);
    testing::populate(s);
  }
  fill(dir.file("filler"));
  // A writer's open grows the WAL index (-shm), which the full disk refuses.
  try {
    Store::open(path);
    ADD_FAILURE() << "opened a database whose disk has no room for its WAL index";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("the disk is full"), std::string::npos) << what;
    EXPECT_EQ(what.find("corrupt"), std::string::npos) << what;
  }
}

}  // namespace
}  // namespace vktune::db
