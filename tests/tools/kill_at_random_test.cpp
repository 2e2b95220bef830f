// The kill-at-random harness: `vktune tune`, `import` (of a JSON export, and of the same export
// zstd-compressed), `merge` and `export`, each started on a fresh target and sent SIGKILL after
// a random delay. After every kill the target passes
// PRAGMA integrity_check, keeps every measurement it held just before the kill, holds no
// duplicate, and the command run again (tune: --resume) completes with exactly the rows an
// uninterrupted one leaves; an export leaves the old file or the whole new one, and beside it
// at most the hidden name of its temporary, which the export run again removes.
//
// CI runs VKTUNE_RELIABILITY_KILLS=20 (the default); a long run raises it, with the writer
// pairs of concurrent_writers_test.cpp:
//   VKTUNE_RELIABILITY_KILLS=200 VKTUNE_RELIABILITY_PAIRS=100 VKTUNE_VALIDATION=1
//   build/tests/tools/vktune_reliability_tests --gtest_filter='KillAtRandom.*:*WriterPairs*'
// The seed is printed and VKTUNE_RELIABILITY_SEED replays it.
#include <gtest/gtest.h>
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

// One kind of command the harness kills.
struct Target {
  std::string name;
  // Sets up the `index`-th target and returns the command's arguments.
  std::function<std::vector<std::string>(const std::string& target)> prepare;
  // The command that finishes the job after the kill (tune: --resume).
  std::function<std::vector<std::string>(const std::string& target)> finish;
  bool is_database = true;
  // Read the rows it must keep just before the kill, while it runs (tune commits as it goes);
  // otherwise before it starts, so that the reading does not delay a kill meant to land within
  // a command of a few tens of milliseconds.
  bool observe_running = false;
};

struct Tally {
  int kills = 0, lost_rows = 0, integrity_failures = 0, duplicates = 0, torn_outputs = 0,
      unfinished = 0, stray_links = 0;  // an export's hidden temporary name left by its kill
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
                      size_t expected, Tally& tally) {
    const DbHealth after = db_health(path);
    if (after.exists && after.integrity != "ok") {
      ++tally.integrity_failures;
      ADD_FAILURE() << t.name << ": " << path << ": " << after.integrity;
    }
    tally.lost_rows += static_cast<int>(lost_rows(before, after));
    tally.duplicates += static_cast<int>(after.duplicates);
    const int code = finish(start_vktune(t.finish(path)));
    const DbHealth done = db_health(path);
    if (code != 0 || done.count != expected || done.duplicates != 0 || done.integrity != "ok") {
      ++tally.unfinished;
      ADD_FAILURE() << t.name << ": finishing " << path << " exited " << code << " with "
                    << done.count << " of " << expected << " rows, " << done.duplicates
                    << " duplicates, integrity " << done.integrity;
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
  const std::string full_export = bytes(src_json_);
  const std::string old_export = "an older export\n";
  const std::string src_zst = dir_.file("src.json.zst");
  std::ofstream(src_zst, std::ios::binary) << zstd_frame(full_export);
  const auto seeded_copy = [&](const std::string& target) {
    fs::copy_file(seed_db_, target);  // a database with committed rows before the command
  };
  const std::vector<Target> targets = {
      {"tune", [](const std::string& t) { return with(kTune, {"--db", t}); },
       [](const std::string& t) {
         return with(kTune, db_health(t).runs ? std::initializer_list<std::string>{"--resume", "--db", t}
                                              : std::initializer_list<std::string>{"--db", t});
       },
       true, true},
      {"import",
       [&](const std::string& t) {
         seeded_copy(t);
         return std::vector<std::string>{"import", src_json_, "--db", t};
       },
       [&](const std::string& t) { return std::vector<std::string>{"import", src_json_, "--db", t}; }},
      {"import_zst",
       [&](const std::string& t) {
         seeded_copy(t);
         return std::vector<std::string>{"import", src_zst, "--db", t};
       },
       [&](const std::string& t) { return std::vector<std::string>{"import", src_zst, "--db", t}; }},
      {"merge",
       [&](const std::string& t) {
         seeded_copy(t);
         return std::vector<std::string>{"merge", src_db_, "-o", t};
       },
       [&](const std::string& t) { return std::vector<std::string>{"merge", src_db_, "-o", t}; }},
      {"export",
       [&](const std::string& t) {
         std::ofstream(t) << old_export;
         return std::vector<std::string>{"export", "--db", src_db_, "-o", t};
       },
       [&](const std::string& t) { return std::vector<std::string>{"export", "--db", src_db_, "-o", t}; },
       false}};
  const size_t expected[] = {tuned, seeded + tuned, seeded + tuned, seeded + tuned};

  // How long each command takes here left alone; its kills land at a uniform moment within that.
  // (A window set by hand for one machine let the short commands finish before most of their
  // kills on a faster one: an export of this database takes under 5 ms.)
  std::vector<int> run_ms;
  for (const Target& t : targets) {
    const std::string work = dir_.file("timed");
    fs::remove_all(work);
    fs::create_directory(work);
    const std::vector<std::string> args =
        t.prepare(work + "/" + t.name + (t.is_database ? ".db" : ".json"));
    const auto begin = std::chrono::steady_clock::now();
    ASSERT_EQ(finish(start_vktune(args)), 0) << t.name;
    const auto took = std::chrono::steady_clock::now() - begin;
    run_ms.push_back(std::max(
        1, static_cast<int>(std::chrono::duration_cast<std::chrono::milliseconds>(took).count())));
  }

  const int wanted = count_from_env("VKTUNE_RELIABILITY_KILLS", 20);
  const unsigned seed = static_cast<unsigned>(
      count_from_env("VKTUNE_RELIABILITY_SEED", static_cast<int>(std::random_device{}() >> 1)));
  std::mt19937 random(seed);
  Tally tally;
  std::vector<int> kills_of(targets.size());
  // A command may finish before its delay is up; those tries are not kills, so allow spares.
  // Each try goes to the command with the fewest kills so far, so all five share the kills.
  for (int attempt = 0; tally.kills < wanted && attempt < 4 * wanted; ++attempt) {
    const size_t kind = static_cast<size_t>(
        std::min_element(kills_of.begin(), kills_of.end()) - kills_of.begin());
    const Target& t = targets[kind];
    const std::string work = dir_.file("work");
    fs::remove_all(work);
    fs::create_directory(work);
    const std::string path = work + "/" + t.name + (t.is_database ? ".db" : ".json");
    const std::vector<std::string> args = t.prepare(path);
    DbHealth before = t.is_database ? db_health(path) : DbHealth{};
    const pid_t pid = start_vktune(args);
    ASSERT_GT(pid, 0);
    std::this_thread::sleep_for(
        std::chrono::milliseconds(std::uniform_int_distribution<int>(0, run_ms[kind] - 1)(random)));
    if (t.observe_running) before = db_health(path);
    const int status = stop(pid, SIGKILL);
    if (!WIFSIGNALED(status)) continue;  // it had finished: no kill to count
    ++tally.kills;
    ++kills_of[kind];
    if (t.is_database) {
      check_database(t, path, before, expected[kind], tally);
      continue;
    }
    // The old file or the whole new one; beside it at most the hidden name the writer links its
    // temporary under just before the rename (atomic_write.h), which the next export removes.
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
      continue;
    }
    if (!linked) continue;
    ++tally.stray_links;
    const int code = finish(start_vktune(t.finish(path)));
    const size_t files = static_cast<size_t>(std::distance(fs::directory_iterator(work), {}));
    if (code != 0 || bytes(path) != full_export || files != 1) {
      ++tally.unfinished;
      ADD_FAILURE() << "the export after a kill left " << files << " files (exit " << code << ")";
    }
  }
  std::printf("kill-at-random (seed %u, runs of %d, %d, %d, %d and %d ms): %d kills (tune %d, "
              "import %d, import of .zst %d, merge %d, export %d), "
              "%d lost committed rows, %d integrity failures, %d duplicates, %d torn outputs, "
              "%d unfinished, %d hidden temporaries left (removed by the next export)\n",
              seed, run_ms[0], run_ms[1], run_ms[2], run_ms[3], run_ms[4], tally.kills,
              kills_of[0], kills_of[1], kills_of[2], kills_of[3], kills_of[4],
              tally.lost_rows, tally.integrity_failures, tally.duplicates, tally.torn_outputs,
              tally.unfinished, tally.stray_links);
  EXPECT_GE(tally.kills, wanted) << "too many commands finished before their kill";
  EXPECT_EQ(tally.lost_rows, 0);
  EXPECT_EQ(tally.integrity_failures, 0);
  EXPECT_EQ(tally.duplicates, 0);
  EXPECT_EQ(tally.torn_outputs, 0);
  EXPECT_EQ(tally.unfinished, 0);
}

}  // namespace
}  // namespace vktune::report
