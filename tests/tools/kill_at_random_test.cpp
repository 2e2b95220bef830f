// The kill-at-random harness: `vktune tune`, `tune --devices 0,0` (two worker processes on the
// one lavapipe device), `import` (of a JSON export, and of the same export zstd-compressed),
// `merge` and `export`, each started on a fresh target and sent SIGKILL after a random delay;
// `tune --devices` once in its parent, once in one of its workers chosen at random. After every
// kill the target passes
// PRAGMA integrity_check, keeps every measurement it held just before the kill, holds no
// duplicate, and the command run again (tune: --resume) completes with exactly the rows an
// uninterrupted one leaves; a parent whose worker was killed exits 1 naming that worker's
// process and how it ended; an export leaves the old file or the whole new one, and beside it
// at most the hidden name of its temporary, which the export run again removes.
//
// CI runs VKTUNE_RELIABILITY_KILLS=28 (the default: four of each kind); a long run raises it,
// with the writer pairs of concurrent_writers_test.cpp:
//   VKTUNE_RELIABILITY_KILLS=200 VKTUNE_RELIABILITY_PAIRS=100 VKTUNE_VALIDATION=1
//   build/tests/tools/vktune_reliability_tests --gtest_filter='KillAtRandom.*:*WriterPairs*'
// The seed is printed and VKTUNE_RELIABILITY_SEED replays it.
#include <gtest/gtest.h>
#include <sys/prctl.h>
#include <zstd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "tests/tools/db_health.h"
#include "tests/tools/device_workers.h"
#include "tests/tools/report_fixture.h"
#include "tests/tools/run_vktune.h"

namespace vktune::report {
namespace {

using namespace vktune::testing;
namespace fs = std::filesystem;

// As in kill_test.cpp: quick shaders on lavapipe, a run of about two seconds.
const std::vector<std::string> kTune = {"tune",    "--shapes", "smoke", "--ops", "rms_norm",
                                        "--m",     "1,2,3,4,5,6,7,8",   "--plain"};

std::string bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// `text` as one zstd frame, the form the shipped databases take.
std::string zstd_frame(const std::string& text) {
  std::string out(ZSTD_compressBound(text.size()), '\0');
  const size_t n = ZSTD_compress(out.data(), out.size(), text.data(), text.size(), 3);
  if (ZSTD_isError(n)) throw std::runtime_error(ZSTD_getErrorName(n));
  out.resize(n);
  return out;
}

std::vector<std::string> with(std::vector<std::string> args, std::initializer_list<std::string> more) {
  args.insert(args.end(), more);
  return args;
}

// The tune that finishes a killed one on `db`: --resume once it had begun a run.
std::vector<std::string> finishing_tune(std::vector<std::string> tune, const std::string& db) {
  if (db_health(db).runs) tune.push_back("--resume");
  return with(std::move(tune), {"--db", db});
}

struct Tally {
  int kills = 0, lost_rows = 0, integrity_failures = 0, duplicates = 0, torn_outputs = 0,
      unfinished = 0, stray_links = 0,  // an export's hidden temporary name left by its kill
      unreported = 0,                   // a killed worker its parent did not name
      orphans = 0,                      // workers that outlived their killed parent
      cut_orphans = 0;  // of those, ended by a signal other than that SIGTERM, so not committing
};

// The orphans a killed `tune --devices` parent leaves: its workers outlive it until the SIGTERM
// the kernel sends them at its death (PR_SET_PDEATHSIG, tools/worker_processes.cpp) has them
// commit what they measured and stop (a line they write meanwhile to the dead parent's pipe
// fails, SIGPIPE being ignored there, rather than killing them first). SIGTERM rather than
// SIGKILL there, since it loses no result; so the checks and the --resume must first wait for
// them, or the resume is refused ("being tuned by process ...") or races a worker still
// writing. This process is made their subreaper: the kernel hands it the orphans, which it then
// waits for exactly, with no scan of /proc and no guess at which process belongs to which run.
class AdoptedOrphans {
 public:
  AdoptedOrphans() { ok_ = ::prctl(PR_SET_CHILD_SUBREAPER, 1) == 0; }
  ~AdoptedOrphans() { ::prctl(PR_SET_CHILD_SUBREAPER, 0); }
  AdoptedOrphans(const AdoptedOrphans&) = delete;
  AdoptedOrphans& operator=(const AdoptedOrphans&) = delete;
  bool ok() const { return ok_; }

  // Waits up to a minute for every child left once the harness's own command has been waited
  // for (it runs one at a time, so those are the orphans), then kills any still alive; returns
  // the wait status of each.
  static std::vector<int> reap() {
    std::vector<int> reaped;
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::minutes(1);
    for (int status = 0;;) {
      const pid_t pid = ::waitpid(-1, &status, WNOHANG);
      if (pid > 0) {
        reaped.push_back(status);
      } else if (pid < 0) {
        return reaped;  // ECHILD: none left
      } else if (std::chrono::steady_clock::now() < give_up) {
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
      } else {
        ADD_FAILURE() << "a worker still runs a minute after its parent was killed";
        for (const pid_t child : children()) ::kill(child, SIGKILL);
        while (::waitpid(-1, &status, 0) > 0) reaped.push_back(status);
        return reaped;
      }
    }
  }

 private:
  static std::vector<pid_t> children() {
    std::ifstream in("/proc/self/task/" + std::to_string(::getpid()) + "/children");
    return {std::istream_iterator<pid_t>(in), std::istream_iterator<pid_t>()};
  }
  bool ok_ = false;
};

// The usual kill: SIGKILL to the command itself; true when it landed (the command had not
// finished).
bool kill_command(pid_t pid, Tally&) { return WIFSIGNALED(stop(pid, SIGKILL)); }

// SIGKILL to a `tune --devices` parent, then the wait for the workers it leaves. Each ends by
// its own exit (having committed), or by the SIGTERM itself when it came before the worker's
// handler was set (nothing measured yet); any other signal cut it short.
bool kill_parent(pid_t pid, Tally& tally) {
  const bool landed = kill_command(pid, tally);
  for (const int status : AdoptedOrphans::reap()) {
    ++tally.orphans;
    if (WIFSIGNALED(status) && WTERMSIG(status) != SIGTERM) {
      ++tally.cut_orphans;
      ADD_FAILURE() << "a worker outliving its killed parent was killed by signal "
                    << WTERMSIG(status);
    }
  }
  return landed;
}

// SIGKILL to one of the two workers a `tune --devices 0,0` parent (`parent`, its stderr in
// `err`) announced, chosen by `pick`, then the wait for the parent. True when the kill landed:
// the parent then exits 1 and names that worker's process and how it ended, and that the other
// worker finished; false when the worker had finished first.
bool kill_a_worker(pid_t parent, const std::string& err, size_t pick, Tally& tally) {
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::minutes(1);
  std::vector<pid_t> workers;
  int status = 0;
  while ((workers = worker_pids(err)).size() < 2) {
    const bool ended = ::waitpid(parent, &status, WNOHANG) == parent;
    if (ended || std::chrono::steady_clock::now() > give_up) {
      if (!ended) kill_parent(parent, tally);
      ADD_FAILURE() << "tune --devices 0,0 did not announce its two workers:\n" << bytes(err);
      return false;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  const pid_t victim = workers[pick % workers.size()];
  ::kill(victim, SIGKILL);
  const int code = finish(parent);
  if (code == 0) return false;  // the worker had finished before its kill
  const std::string said = bytes(err);
  if (code != 1 ||
      said.find("(process " + std::to_string(victim) + ") was killed by signal 9") ==
          std::string::npos ||
      said.find("1 of 2 workers finished") == std::string::npos) {
    ++tally.unreported;
    ADD_FAILURE() << "a killed worker's parent exited " << code << ":\n" << said;
  }
  return true;
}

// One kind of command the harness kills.
struct Target {
  std::string name;
  // Sets up the target at `target` (a path) and returns the command's arguments.
  std::function<std::vector<std::string>(const std::string& target)> prepare;
  // The command that finishes the job after the kill (tune: --resume).
  std::function<std::vector<std::string>(const std::string& target)> finish;
  size_t rows = 0;  // the measurements a database target holds once its job is done
  bool is_database = true;
  // Read the rows it must keep just before the kill, while it runs (tune commits as it goes);
  // otherwise before it starts, so that the reading does not delay a kill meant to land within
  // a command of a few tens of milliseconds.
  bool observe_running = false;
  // Sends the kill to the started command (pid) and waits until no process of it runs; returns
  // whether the kill landed (false: the command had finished first).
  std::function<bool(pid_t pid, Tally& tally)> kill = kill_command;
};

class KillAtRandom : public ::testing::Test {
 protected:
  void SetUp() override {
    const VktuneResult tuned = vktune("tune --shapes smoke --ops rms_norm --m 1,2,3,4,5,6,7,8 "
                                      "--plain --db " + quoted(src_db_));
    ASSERT_EQ(tuned.exit_code, 0) << tuned.output;
    const VktuneResult exported = vktune("export --db " + quoted(src_db_) + " -o " + quoted(src_json_));
    ASSERT_EQ(exported.exit_code, 0) << exported.output;
    db::Store seed = db::Store::open(seed_db_);
    build_synthetic(seed);
  }

  // Checks a killed database target and finishes its job; adds what went wrong to `tally`.
  void check_database(const Target& t, const std::string& path, const DbHealth& before,
                      Tally& tally) {
    const DbHealth after = db_health(path);
    if (after.exists && after.integrity != "ok") {
      ++tally.integrity_failures;
      ADD_FAILURE() << t.name << ": " << path << ": " << after.integrity;
    }
    tally.lost_rows += static_cast<int>(lost_rows(before, after));
    tally.duplicates += static_cast<int>(after.duplicates);
    const int code = finish(start_vktune(t.finish(path)));
    const DbHealth done = db_health(path);
    if (code != 0 || done.count != t.rows || done.duplicates != 0 || done.integrity != "ok") {
      ++tally.unfinished;
      ADD_FAILURE() << t.name << ": finishing " << path << " exited " << code << " with "
                    << done.count << " of " << t.rows << " rows, " << done.duplicates
                    << " duplicates, integrity " << done.integrity;
    }
  }

  // Checks a killed export to `path` (which held `old_export`) and finishes it; adds what went
  // wrong to `tally`. The old file or the whole new one; beside it at most the hidden name the
  // writer links its temporary under just before the rename (atomic_write.h), which the next
  // export removes.
  void check_export(const Target& t, const std::string& path, const std::string& old_export,
                    Tally& tally) {
    const std::string full_export = bytes(src_json_);
    const fs::path work = fs::path(path).parent_path();
    const std::string left = bytes(path);
    std::vector<std::string> beside;
    for (const fs::directory_entry& e : fs::directory_iterator(work)) {
      if (e.path() != fs::path(path)) beside.push_back(e.path().filename().string());
    }
    const std::string hidden = "." + fs::path(path).filename().string() + ".";
    const bool linked =
        beside.size() == 1 && beside[0].starts_with(hidden) && beside[0].ends_with(".tmp");
    if ((left != old_export && left != full_export) || !(beside.empty() || linked)) {
      ++tally.torn_outputs;
      ADD_FAILURE() << "export killed: " << left.size() << " bytes, " << beside.size() + 1
                    << " files";
      return;
    }
    if (!linked) return;
    ++tally.stray_links;
    const int code = finish(start_vktune(t.finish(path)));
    const size_t files = static_cast<size_t>(std::distance(fs::directory_iterator(work), {}));
    if (code != 0 || bytes(path) != full_export || files != 1) {
      ++tally.unfinished;
      ADD_FAILURE() << "the export after a kill left " << files << " files (exit " << code << ")";
    }
  }

  // A path for `t` in the directory `name`, emptied first.
  std::string fresh_path(const Target& t, const std::string& name) {
    const std::string work = dir_.file(name);
    fs::remove_all(work);
    fs::create_directory(work);
    return work + "/" + t.name + (t.is_database ? ".db" : ".json");
  }

  // How long each target's command takes here left alone, into `run_ms` (its kills land at a
  // uniform moment within that: a window set by hand for one machine let the short commands
  // finish before most of their kills on a faster one, where an export of this database takes
  // under 5 ms); a database target must then hold its `rows`.
  void time_alone(const std::vector<Target>& targets, std::vector<int>& run_ms) {
    for (const Target& t : targets) {
      const std::string path = fresh_path(t, "timed");
      const std::vector<std::string> args = t.prepare(path);
      const auto begin = std::chrono::steady_clock::now();
      ASSERT_EQ(finish(start_vktune(args)), 0) << t.name;
      const auto took = std::chrono::steady_clock::now() - begin;
      const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(took).count();
      run_ms.push_back(std::max(1, static_cast<int>(ms)));
      if (t.is_database) {
        ASSERT_EQ(db_health(path).count, t.rows) << t.name << " left alone";
      }
    }
  }

  TempDir dir_;
  const std::string src_db_ = dir_.file("src.db");
  const std::string src_json_ = dir_.file("src.json");
  const std::string seed_db_ = dir_.file("seed.db");
};

TEST_F(KillAtRandom, NoKillLosesACommittedRowOrLeavesHalfAFile) {
  const size_t tuned = db_health(src_db_).count;
  const size_t seeded = db_health(seed_db_).count;
  ASSERT_GT(tuned, 0u);
  ASSERT_GT(seeded, 0u);
  const std::string old_export = "an older export\n";
  const std::string src_zst = dir_.file("src.json.zst");
  std::ofstream(src_zst, std::ios::binary) << zstd_frame(bytes(src_json_));
  const int wanted = count_from_env("VKTUNE_RELIABILITY_KILLS", 28);
  const unsigned seed = static_cast<unsigned>(
      count_from_env("VKTUNE_RELIABILITY_SEED", static_cast<int>(std::random_device{}() >> 1)));
  std::mt19937 random(seed);
  const RepeatDevices repeat;  // --devices 0,0: two workers on the one lavapipe device
  const AdoptedOrphans adopted;
  ASSERT_TRUE(adopted.ok()) << "prctl(PR_SET_CHILD_SUBREAPER) failed";
  const std::string err = dir_.file("stderr.txt");  // outside the directory an export checks

  const auto seeded_copy = [&](const std::string& target) {
    fs::copy_file(seed_db_, target);  // a database with committed rows before the command
  };
  const auto tune = [&](std::string name, std::vector<std::string> command,
                        std::function<bool(pid_t, Tally&)> kill) {
    return Target{.name = std::move(name),
                  .prepare = [=](const std::string& t) { return with(command, {"--db", t}); },
                  .finish = [=](const std::string& t) { return finishing_tune(command, t); },
                  .rows = tuned,
                  .observe_running = true,
                  .kill = std::move(kill)};
  };
  const auto into_seeded = [&](std::string name, std::vector<std::string> command) {
    const auto args = [=](const std::string& t) { return with(command, {t}); };
    return Target{.name = std::move(name),
                  .prepare =
                      [=](const std::string& t) {
                        seeded_copy(t);
                        return args(t);
                      },
                  .finish = args,
                  .rows = seeded + tuned};
  };
  const auto export_to = [&](const std::string& t) {
    return std::vector<std::string>{"export", "--db", src_db_, "-o", t};
  };
  const std::vector<std::string> on_two_workers = with(kTune, {"--devices", "0,0"});
  const std::vector<Target> targets = {
      tune("tune", kTune, kill_command),
      tune("tune_devices", on_two_workers, kill_parent),  // the parent killed
      tune("tune_worker", on_two_workers,                 // one of its workers killed
           [&](pid_t pid, Tally& tally) { return kill_a_worker(pid, err, random(), tally); }),
      into_seeded("import", {"import", src_json_, "--db"}),
      into_seeded("import_zst", {"import", src_zst, "--db"}),
      into_seeded("merge", {"merge", src_db_, "-o"}),
      {.name = "export",
       .prepare = [&](const std::string& t) {
         std::ofstream(t) << old_export;
         return export_to(t);
       },
       .finish = export_to,
       .is_database = false}};

  std::vector<int> run_ms;
  ASSERT_NO_FATAL_FAILURE(time_alone(targets, run_ms));

  Tally tally;
  std::vector<int> kills_of(targets.size());
  // A command may finish before its delay is up; those tries are not kills, so allow spares.
  // Each try goes to the command with the fewest kills so far, so all of them share the kills.
  for (int attempt = 0; tally.kills < wanted && attempt < 4 * wanted; ++attempt) {
    const size_t kind = static_cast<size_t>(
        std::min_element(kills_of.begin(), kills_of.end()) - kills_of.begin());
    const Target& t = targets[kind];
    const std::string path = fresh_path(t, "work");
    const std::vector<std::string> args = t.prepare(path);
    DbHealth before = t.is_database ? db_health(path) : DbHealth{};
    const pid_t pid = start_vktune(args, err);
    ASSERT_GT(pid, 0);
    std::this_thread::sleep_for(
        std::chrono::milliseconds(std::uniform_int_distribution<int>(0, run_ms[kind] - 1)(random)));
    if (t.observe_running) before = db_health(path);
    if (!t.kill(pid, tally)) continue;  // it had finished: no kill to count
    ++tally.kills;
    ++kills_of[kind];
    if (t.is_database) {
      check_database(t, path, before, tally);
    } else {
      check_export(t, path, old_export, tally);
    }
  }
  std::string runs, kills;
  for (size_t i = 0; i < targets.size(); ++i) {
    runs += (i ? ", " : "") + targets[i].name + " " + std::to_string(run_ms[i]) + " ms";
    kills += (i ? ", " : "") + targets[i].name + " " + std::to_string(kills_of[i]);
  }
  std::printf("kill-at-random (seed %u; runs of %s): %d kills (%s), %d lost committed rows, "
              "%d integrity failures, %d duplicates, %d torn outputs, %d unfinished, "
              "%d hidden temporaries left (removed by the next export), %d killed workers "
              "unreported by their parent, %d workers outlived their killed parent (waited for; "
              "%d of them cut short by a signal)\n",
              seed, runs.c_str(), tally.kills, kills.c_str(), tally.lost_rows,
              tally.integrity_failures, tally.duplicates, tally.torn_outputs, tally.unfinished,
              tally.stray_links, tally.unreported, tally.orphans, tally.cut_orphans);
  EXPECT_GE(tally.kills, wanted) << "too many commands finished before their kill";
  EXPECT_EQ(tally.lost_rows, 0);
  EXPECT_EQ(tally.integrity_failures, 0);
  EXPECT_EQ(tally.duplicates, 0);
  EXPECT_EQ(tally.torn_outputs, 0);
  EXPECT_EQ(tally.unfinished, 0);
  EXPECT_EQ(tally.unreported, 0);
  EXPECT_EQ(tally.cut_orphans, 0);
}

}  // namespace
}  // namespace vktune::report
