// `vktune tune --devices`: on lavapipe, `--devices all` and `--devices 0` tune the problems and
// coverage a plain run does, with one summary on stdout; two workers on the one device (the test
// hook VKTUNE_TEST_REPEAT_DEVICES) deal the problems between them; one of them killed with
// SIGKILL leaves a sound database, the parent names it, and `--resume` completes its share.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "db/store.h"
#include "tests/temp_dir.h"
#include "tests/tools/coverage_rows.h"
#include "tests/tools/device_workers.h"
#include "tests/tools/run_vktune.h"

namespace vktune::testing {
namespace {

const std::string kShapes = "--shapes smoke --ops rms_norm --strategy exhaustive --plain ";
const std::string kTune = "tune " + kShapes + "--m 1,2,4 --variant-budget 0.01 ";

std::string text_of(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(VktuneTuneDevices, AllAndOneDeviceCoverWhatAPlainRunCovers) {
  TempDir dir;
  const std::string err = " 2>>" + quoted(dir.file("stderr.txt"));
  ASSERT_EQ(vktune(kTune + "--db " + quoted(dir.file("plain.db")), "", err).exit_code, 0);
  const auto whole = covered(dir.file("plain.db"));
  ASSERT_EQ(whole.size(), 3u);
  for (const std::string devices : {"all", "0"}) {
    const std::string db = dir.file(devices + ".db");
    const VktuneResult r = vktune(kTune + "--devices " + devices + " --db " + quoted(db), "", err);
    ASSERT_EQ(r.exit_code, 0) << devices << "\n" << text_of(dir.file("stderr.txt"));
    EXPECT_EQ(covered(db), whole) << devices;
    // stdout is the run's one table: the device's header once, every problem once.
    EXPECT_NE(r.output.find("rms_norm M=4"), std::string::npos) << r.output;
    EXPECT_EQ(r.output.find("copy bandwidth"), r.output.rfind("copy bandwidth")) << r.output;
  }
  // Each worker's progress on stderr carries its device.
  EXPECT_NE(text_of(dir.file("stderr.txt")).find("[0] vktune tune: 3 problems"), std::string::npos);
}

TEST(VktuneTuneDevices, JsonIsOneDocumentOfEveryWorkersProblems) {
  TempDir dir;
  const RepeatDevices repeat;
  const VktuneResult r = vktune(kTune + "--devices 0,0 --json --db " + quoted(dir.file("j.db")),
                                "", "2>/dev/null");
  ASSERT_EQ(r.exit_code, 0);
  const nlohmann::json doc = nlohmann::json::parse(r.output);  // throws unless one document
  ASSERT_EQ(doc.at("devices").size(), 1u);
  EXPECT_EQ(doc.at("devices")[0].at("problems").size(), 3u);
}

TEST(VktuneTuneDevices, TwoWorkersOnOneKindOfDeviceDealTheProblems) {
  TempDir dir;
  const RepeatDevices repeat;
  const std::string err = dir.file("stderr.txt");
  ASSERT_EQ(vktune(kTune + "--db " + quoted(dir.file("plain.db")), "", "2>/dev/null").exit_code, 0);
  const VktuneResult r =
      vktune(kTune + "--devices 0,0 --db " + quoted(dir.file("two.db")), "", "2>" + quoted(err));
  ASSERT_EQ(r.exit_code, 0) << text_of(err);
  EXPECT_EQ(covered(dir.file("two.db")), covered(dir.file("plain.db")));
  const std::string progress = text_of(err);
  EXPECT_NE(progress.find("--device 0 --worker --shard 1/2"), std::string::npos) << progress;
  EXPECT_NE(progress.find("--device 0 --worker --shard 2/2"), std::string::npos) << progress;
  EXPECT_EQ(db::Store::open(dir.file("two.db"), db::OpenMode::read_only).runs().size(), 2u);
}

// Results stored per run.
std::map<int64_t, size_t> stored_per_run(const std::string& path) {
  std::map<int64_t, size_t> runs;
  try {
    for (const db::Measurement& m : db::Store::open(path, db::OpenMode::read_only).measurements()) {
      ++runs[m.run_id];
    }
  } catch (const std::exception&) {
    // not created yet
  }
  return runs;
}

size_t stored(const std::string& path) {
  size_t total = 0;
  for (const auto& [run, count] : stored_per_run(path)) total += count;
  return total;
}

// Both workers' runs hold results: the one killed then has a run to resume.
bool both_stored(const std::string& path) {
  const std::map<int64_t, size_t> runs = stored_per_run(path);
  return runs.size() == 2 && runs.begin()->second >= 5 && runs.rbegin()->second >= 5;
}

TEST(VktuneTuneDevices, AKilledWorkerIsNamedAndResumeCompletesItsShare) {
  TempDir dir;
  const RepeatDevices repeat;
  // As in kill_test.cpp, halving over quick rms_norm shaders (stage one measures every
  // variant), with 32 problems, sixteen a worker, so each is still tuning when the kill comes.
  std::string shapes = "--shapes smoke --ops rms_norm --plain --m 1";
  for (int m = 2; m <= 32; ++m) (shapes += ',') += std::to_string(m);
  const std::string db = dir.file("k.db"), err = dir.file("stderr.txt");
  std::vector<std::string> args = {"tune"};
  std::istringstream words(shapes + " --devices 0,0 --db " + db);
  for (std::string word; words >> word;) args.push_back(word);
  const pid_t parent = start_vktune(args, err);
  ASSERT_GT(parent, 0);
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (std::chrono::steady_clock::now() < give_up &&
         (!both_stored(db) || worker_pids(err).size() < 2)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ASSERT_TRUE(both_stored(db)) << "the workers did not both store results:\n" << text_of(err);
  const std::vector<pid_t> workers = worker_pids(err);
  ASSERT_EQ(workers.size(), 2u) << text_of(err);
  ASSERT_EQ(::kill(workers[1], SIGKILL), 0);
  EXPECT_EQ(finish(parent), 1) << text_of(err);
  EXPECT_NE(text_of(err).find("device [0] llvmpipe"), std::string::npos) << text_of(err);
  EXPECT_NE(text_of(err).find("(process " + std::to_string(workers[1]) +
                              ") was killed by signal 9"),
            std::string::npos)
      << text_of(err);
  EXPECT_NE(text_of(err).find("1 of 2 workers finished"), std::string::npos) << text_of(err);
  const size_t kept = stored(db);

  const VktuneResult resumed =
      vktune("tune " + shapes + " --devices 0,0 --resume --db " + quoted(db));
  ASSERT_EQ(resumed.exit_code, 0) << resumed.output;
  EXPECT_NE(resumed.output.find("resuming run"), std::string::npos) << resumed.output;

  // The open runs SQLite's quick_check. Every legal variant of every problem once: the kept
  // results and the resumed share's, none measured twice.
  db::Store store = db::Store::open(db);
  const auto rows = store.measurements();
  EXPECT_GT(rows.size(), kept);
  std::map<int64_t, std::set<int64_t>> kernels_of;
  for (const db::Measurement& m : rows) {
    EXPECT_TRUE(kernels_of[m.problem_id].insert(m.kernel_id).second) << "measured twice";
  }
  ASSERT_EQ(store.problems().size(), 32u);
  std::map<int64_t, uint32_t> legal;
  for (const db::Coverage& c : store.coverage()) legal[c.problem_id] = c.legal;
  ASSERT_EQ(legal.size(), 32u);
  for (const auto& [problem, count] : legal) {
    EXPECT_EQ(kernels_of[problem].size(), count) << "problem " << problem;
  }
}

TEST(VktuneTuneDevices, BadDeviceListsAreUsageErrorsThatWriteNothing) {
  TempDir dir;
  const std::string db = dir.file("bad.db");
  for (const std::string devices : {"0,0", "7", "", "x", "0,", "--device 0 --devices 0",
                                    "--shard 1/2 --devices 0"}) {
    const std::string flag = devices.starts_with("--") ? devices : "--devices '" + devices + "'";
    const VktuneResult r = vktune(kTune + flag + " --db " + quoted(db));
    EXPECT_EQ(r.exit_code, 2) << flag << ": " << r.output;
    EXPECT_NE(r.output.find("--devices"), std::string::npos) << flag << ": " << r.output;
    EXPECT_FALSE(std::filesystem::exists(db)) << flag;
  }
}

}  // namespace
}  // namespace vktune::testing
