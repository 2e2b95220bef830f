// RunLock: a second claim on a run is refused naming the holder's process, other runs stay
// free, and a released claim (as a finished or killed run leaves it) can be taken again.
#include "tuner/run_lock.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <optional>
#include <string>

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
