// RunLock: a second claim on a run is refused naming the holder's process, other runs stay
// free, a released claim (as a finished or killed run leaves it) can be taken again, and the
// last claim to let go leaves no lock file.
#include "tuner/run_lock.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <filesystem>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "tests/temp_dir.h"

namespace vktune::tuner {
namespace {

TEST(RunLock, SecondClaimOnARunIsRefusedNamingTheHolder) {
  testing::TempDir dir;
  const std::string db = dir.file("tuned.db");
  std::optional<RunLock> first = RunLock::acquire(db, 3);
  try {
    RunLock::acquire(db, 3);
    FAIL() << "run 3 claimed twice";
  } catch (const RunClaimed& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("run 3 of " + db), std::string::npos) << what;
    EXPECT_NE(what.find("process " + std::to_string(::getpid())), std::string::npos) << what;
  }
  EXPECT_NO_THROW(RunLock::acquire(db, 4)) << "another run of the same database is free";
  first.reset();
  EXPECT_NO_THROW(RunLock::acquire(db, 3)) << "a released run can be claimed again";
}

TEST(RunLock, MovedClaimStillHoldsTheRun) {
  testing::TempDir dir;
  const std::string db = dir.file("tuned.db");
  RunLock moved = RunLock::acquire(db, 1);
  RunLock holder = std::move(moved);
  EXPECT_THROW(RunLock::acquire(db, 1), RunClaimed);
}

TEST(RunLock, TheLastClaimToLetGoRemovesTheLockFile) {
  testing::TempDir dir;
  const std::string db = dir.file("tuned.db");
  const std::string file = db + "-runs.lock";
  std::optional<RunLock> one = RunLock::acquire(db, 1);
  std::optional<RunLock> two = RunLock::acquire(db, 2);
  EXPECT_TRUE(std::filesystem::exists(file));
  one.reset();
  EXPECT_TRUE(std::filesystem::exists(file)) << "run 2 still holds its record there";
  two.reset();
  EXPECT_FALSE(std::filesystem::exists(file)) << "no claim left, no file left";
  const RunLock again = RunLock::acquire(db, 1);
  EXPECT_THROW(RunLock::acquire(db, 1), RunClaimed) << "claims exclude each other in a new file";
}

TEST(RunLock, ClaimsRacingTheFilesRemovalNeverShareARun) {
  // OFD locks conflict between open file descriptions, so threads race here as processes do.
  testing::TempDir dir;
  const std::string db = dir.file("tuned.db");
  std::array<std::atomic<int>, 2> holders{};
  std::atomic<int> shared{0}, granted{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 6; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 300; ++i) {
        const int run = (t + i) % 2;
        try {
          const RunLock lock = RunLock::acquire(db, run + 1);
          if (holders[run].fetch_add(1) != 0) ++shared;
          ++granted;
          std::this_thread::yield();
          holders[run].fetch_sub(1);
        } catch (const RunClaimed&) {
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(shared.load(), 0) << "two claims held one run at once";
  EXPECT_GT(granted.load(), 0);
  EXPECT_FALSE(std::filesystem::exists(db + "-runs.lock"));
}

TEST(RunLock, UnwritableDirectoryIsANamedError) {
  try {
    RunLock::acquire("/proc/vktune-no-such-dir/x.db", 1);
    FAIL() << "claimed a run in /proc";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("x.db-runs.lock"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace vktune::tuner
