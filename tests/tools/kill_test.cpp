// `vktune tune` killed with SIGKILL mid-run, then `--resume`d: what was committed survives, the
// database passes SQLite's integrity check, and the resumed run measures every legal variant
// exactly once, in the same run. SIGINT stops it between chunks, with exit status 130. A resume
// of a run that another process is tuning is refused.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <sstream>
#include <thread>
#include <utility>

#include "db/store.h"
#include "tests/temp_dir.h"
#include "tests/tools/run_vktune.h"

namespace vktune::testing {
namespace {

// rms_norm only: no shader takes long to build on lavapipe, and eight problems keep the run
// going long enough to be killed in the middle.
const std::string kShapes = "--shapes smoke --ops rms_norm --m 1,2,3,4,5,6,7,8 --plain";

size_t stored(const std::string& path) {
  try {
    return db::Store::open(path, db::OpenMode::read_only).measurements().size();
  } catch (const std::exception&) {
    return 0;  // not created yet
  }
}

// Starts `vktune tune <shapes> <extra> --db <db>`; returns its pid, or -1.
pid_t start_tune(const std::string& db, const std::string& extra = "",
                 const std::string& shapes = kShapes) {
  std::vector<std::string> args = {"tune"};
  std::istringstream words(shapes + " " + extra);
  for (std::string word; words >> word;) args.push_back(word);
  args.insert(args.end(), {"--db", db});
  return start_vktune(std::move(args));
}

// Waits until `db` holds at least `results` results while `pid` runs; false (with its wait
// status in `status`) when it ended first.
bool wait_for_results(pid_t pid, const std::string& db, size_t results, int& status) {
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (std::chrono::steady_clock::now() < give_up && stored(db) < results) {
    if (waitpid(pid, &status, WNOHANG) == pid) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

// Starts `vktune tune` on `db` and sends it `signal` once it has committed at least ten
// results; returns its wait status.
int interrupt_tune(const std::string& db, int signal) {
  const pid_t pid = start_tune(db);
  if (pid < 0) return -1;
  int status = 0;
  if (!wait_for_results(pid, db, 10, status)) return status;  // ended before the signal
  return stop(pid, signal);
}

TEST(VktuneKill, AKilledRunResumesWithoutLossOrDuplicates) {
  TempDir dir;
  const std::string db = dir.file("k.db");
  const int status = interrupt_tune(db, SIGKILL);
  ASSERT_TRUE(WIFSIGNALED(status)) << "the run ended before it could be killed";
  EXPECT_GE(stored(db), 10u);  // it was killed once ten were committed: none lost

  const VktuneResult resumed = vktune("tune " + kShapes + " --resume --db " + quoted(db));
  ASSERT_EQ(resumed.exit_code, 0) << resumed.output;
  EXPECT_NE(resumed.output.find("resuming run 1"), std::string::npos) << resumed.output;

  // The open runs SQLite's quick_check; then every legal variant once, in one run.
  db::Store store = db::Store::open(db);
  EXPECT_EQ(store.runs().size(), 1u);
  const auto rows = store.measurements();
  std::set<std::pair<int64_t, int64_t>> distinct;
  for (const db::Measurement& m : rows) distinct.emplace(m.problem_id, m.kernel_id);
  EXPECT_EQ(distinct.size(), rows.size());
  size_t legal = 0;
  for (const db::Coverage& c : store.coverage()) legal += c.legal;
  EXPECT_EQ(store.problems().size(), 8u);
  EXPECT_EQ(rows.size(), legal);
  EXPECT_GT(legal, 0u);
}

TEST(VktuneKill, SigintStopsBetweenChunksKeepingWhatWasMeasured) {
  TempDir dir;
  const std::string db = dir.file("i.db");
  const int status = interrupt_tune(db, SIGINT);
  ASSERT_TRUE(WIFEXITED(status)) << "SIGINT should end the run through its own exit";
  EXPECT_EQ(WEXITSTATUS(status), 128 + SIGINT);
  const size_t kept = stored(db);
  EXPECT_GE(kept, 10u);
  const VktuneResult resumed = vktune("tune " + kShapes + " --resume --db " + quoted(db));
  ASSERT_EQ(resumed.exit_code, 0) << resumed.output;
  db::Store store = db::Store::open(db);
  EXPECT_EQ(store.runs().size(), 1u);
  EXPECT_GT(store.measurements().size(), kept);
}

// A run compiles every variant's shader before its first measurement, a minute of the smoke
// shape's q4gsw variants on a two-core machine with no SPIR-V cache: SIGINT stops that as well,
// after the shaders being compiled, not after all of them.
TEST(VktuneKill, SigintStopsTheCompileStage) {
  TempDir dir;
  const std::string db = dir.file("c.db");
  const std::filesystem::path cache = dir.path() / "cache";
  ASSERT_EQ(::setenv("VKTUNE_CACHE_DIR", cache.c_str(), 1), 0);  // empty: every shader compiles
  const pid_t pid = start_tune(db, "", "--shapes smoke --ops q4gsw --m 1 --plain");
  ::unsetenv("VKTUNE_CACHE_DIR");
  ASSERT_GT(pid, 0);
  const auto compiled = [&] {
    std::error_code ec;
    size_t files = 0;
    for (auto it = std::filesystem::recursive_directory_iterator(cache, ec);
         !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
      files += it->is_regular_file();
    }
    return files;
  };
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (compiled() < 3 && std::chrono::steady_clock::now() < give_up) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ASSERT_GE(compiled(), 3u) << "the compile stage never began";
  const auto sent = std::chrono::steady_clock::now();
  const int status = stop(pid, SIGINT);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - sent).count();
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 128 + SIGINT);
  EXPECT_LT(seconds, 20.0);
  EXPECT_EQ(stored(db), 0u) << "stopped while compiling, before any measurement";
}

// A resume of a run another process is tuning is refused, naming that process, instead of
// measuring the same variants twice: both beside the run itself and beside another resume.
// The variant budget keeps the holder busy for minutes; it is stopped as soon as the refusal
// was seen.
TEST(VktuneKill, ResumingARunAnotherProcessTunesIsRefused) {
  TempDir dir;
  const std::string db = dir.file("r.db");
  // Four times kShapes' problems: each run must still be going when the next command starts
  // beside it (with eight, a resume on a loaded machine could finish the few variants the
  // killed run had left before the refused one started).
  std::string shapes = "--shapes smoke --ops rms_norm --plain --m 1";
  for (int m = 2; m <= 32; ++m) (shapes += ',') += std::to_string(m);  // no GCC 12 -Wrestrict
  const std::string slow = "--variant-budget 5";
  int status = 0;
  const pid_t first = start_tune(db, slow, shapes);
  ASSERT_GT(first, 0);
  ASSERT_TRUE(wait_for_results(first, db, 1, status)) << "the run ended before the resume";
  const VktuneResult beside_run = vktune("tune " + shapes + " --resume --db " + quoted(db));
  EXPECT_EQ(beside_run.exit_code, 1) << beside_run.output;
  EXPECT_NE(beside_run.output.find("run 1 of " + db + " is being tuned by process " +
                                   std::to_string(first)),
            std::string::npos)
      << beside_run.output;
  stop(first, SIGKILL);
  const size_t kept = stored(db);

  const pid_t second = start_tune(db, slow + " --resume", shapes);
  ASSERT_GT(second, 0);
  ASSERT_TRUE(wait_for_results(second, db, kept + 1, status)) << "the resume ended too soon";
  const VktuneResult beside_resume = vktune("tune " + shapes + " --resume --db " + quoted(db));
  EXPECT_EQ(beside_resume.exit_code, 1) << beside_resume.output;
  EXPECT_NE(beside_resume.output.find("is being tuned by process " + std::to_string(second)),
            std::string::npos)
      << beside_resume.output;
  stop(second, SIGKILL);
  EXPECT_EQ(db::Store::open(db).runs().size(), 1u) << "a refused resume starts no run";
}

}  // namespace
}  // namespace vktune::testing
