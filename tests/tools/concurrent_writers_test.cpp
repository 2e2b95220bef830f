// Writers started together on a database path that does not exist yet: every one succeeds
// (they serialise on SQLite's busy timeout) and the result holds each document once, since
// importing or merging a run again adds nothing. Eight importers at once; then pairs of
// import, merge and tune in every mix (VKTUNE_RELIABILITY_PAIRS raises their count for a long
// run; CI runs 8).
#include <gtest/gtest.h>

#include <cstdio>
#include <functional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "tests/tools/db_health.h"
#include "tests/tools/report_fixture.h"
#include "tests/tools/run_vktune.h"

namespace vktune::report {
namespace {

using namespace vktune::testing;

class VktuneConcurrentWriters : public ::testing::Test {
 protected:
  void SetUp() override {
    {
      db::Store source = db::Store::open(source_db_);
      build_synthetic(source);
    }
    const VktuneResult exported = vktune("export --db " + quoted(source_db_) + " -o " + quoted(json_));
    ASSERT_EQ(exported.exit_code, 0) << exported.output;
    expected_ = db_health(source_db_).count;
    ASSERT_GT(expected_, 0u);
  }
  TempDir dir_;
  const std::string source_db_ = dir_.file("source.db");
  const std::string json_ = dir_.file("source.json");
  size_t expected_ = 0;
};

TEST_F(VktuneConcurrentWriters, ImportsOntoANewPathAllSucceed) {
  constexpr int kRounds = 5;
  constexpr int kWriters = 8;
  int failures = 0;
  for (int round = 0; round < kRounds; ++round) {
    const std::string db = dir_.file("new" + std::to_string(round) + ".db");
    std::vector<VktuneResult> results(kWriters);
    std::vector<std::thread> writers;
    for (int w = 0; w < kWriters; ++w) {
      writers.emplace_back([&, w] { results[w] = vktune("import " + quoted(json_) + " --db " + quoted(db)); });
    }
    for (std::thread& t : writers) t.join();
    for (const VktuneResult& r : results) {
      EXPECT_EQ(r.exit_code, 0) << "round " << round << ": " << r.output;
      failures += r.exit_code != 0;
    }
    EXPECT_EQ(db_health(db).count, expected_);
  }
  EXPECT_EQ(failures, 0) << "of " << kRounds * kWriters << " imports";
}

TEST_F(VktuneConcurrentWriters, WriterPairsOnANewPathAllSucceed) {
  const auto import = [&](const std::string& db) {
    return std::vector<std::string>{"import", json_, "--db", db};
  };
  const auto merge = [&](const std::string& db) {
    return std::vector<std::string>{"merge", source_db_, "-o", db};
  };
  const auto tune = [](const std::string& db) {
    return std::vector<std::string>{"tune", "--shapes", "smoke", "--ops", "rms_norm", "--m", "1",
                                    "--plain", "--db", db};
  };
  using Command = std::function<std::vector<std::string>(const std::string&)>;
  const std::vector<std::pair<Command, Command>> mixes = {
      {import, import}, {merge, merge}, {import, merge}, {tune, import}};
  const int pairs = count_from_env("VKTUNE_RELIABILITY_PAIRS", 8);
  int failures = 0;
  for (int p = 0; p < pairs; ++p) {
    const auto& [first, second] = mixes[static_cast<size_t>(p) % mixes.size()];
    const std::string db = dir_.file("pair" + std::to_string(p) + ".db");
    const pid_t a = start_vktune(first(db));
    const pid_t b = start_vktune(second(db));
    const int code_a = finish(a);
    const int code_b = finish(b);
    const DbHealth h = db_health(db);
    // The tune mix adds its own run to the imported one.
    const bool tuned = p % mixes.size() == 3;
    const bool ok = code_a == 0 && code_b == 0 && h.integrity == "ok" && h.duplicates == 0 &&
                    (tuned ? h.count > expected_ : h.count == expected_);
    failures += !ok;
    EXPECT_TRUE(ok) << "pair " << p << ": exits " << code_a << ", " << code_b << "; " << h.count
                    << " rows (" << expected_ << " imported), " << h.duplicates
                    << " duplicates, integrity " << h.integrity;
  }
  std::printf("concurrent writers: %d pairs on new paths, %d failures\n", pairs, failures);
  EXPECT_EQ(failures, 0);
}

}  // namespace
}  // namespace vktune::report
