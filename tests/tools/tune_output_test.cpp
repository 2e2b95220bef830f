// `vktune tune` and `vktune bench` on the device: results on stdout, progress and diagnostics on
// stderr, so a script can read stdout alone (as a table, or with --json as a document); and
// `lookup` on what a tune stored.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "tests/temp_dir.h"
#include "tests/tools/run_vktune.h"

namespace vktune::testing {
namespace {

const std::string kShapes = "--shapes smoke --ops rms_norm --m 1,2 --plain --variant-budget 0.01";

std::string slurp_file(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

TEST(VktuneTuneOutput, ResultsOnStdoutProgressOnStderr) {
  TempDir dir;
  const std::string err = dir.file("stderr.txt");
  const VktuneResult table =
      vktune("tune " + kShapes + " --db " + quoted(dir.file("a.db")), "", "2>" + quoted(err));
  ASSERT_EQ(table.exit_code, 0) << slurp_file(err);
  const std::string progress = slurp_file(err);
  EXPECT_NE(progress.find("vktune tune: 2 problems"), std::string::npos) << progress;
  EXPECT_NE(progress.find("results stored in"), std::string::npos) << progress;
  EXPECT_EQ(table.output.find("vktune tune:"), std::string::npos) << table.output;
  EXPECT_EQ(table.output.find("[1/2]"), std::string::npos) << table.output;
  EXPECT_NE(table.output.find("rms_norm M=2 N="), std::string::npos) << table.output;
  EXPECT_NE(table.output.find("geomean speedup over fixed routing"), std::string::npos);

  const VktuneResult json = vktune("tune " + kShapes + " --json --db " + quoted(dir.file("b.db")),
                                   "", "2>" + quoted(err));
  ASSERT_EQ(json.exit_code, 0) << slurp_file(err);
  const auto doc = nlohmann::json::parse(json.output);  // stdout holds nothing else
  EXPECT_EQ(doc["format"], "vktune-summary");
  EXPECT_EQ(doc["source"], "b.db");
  ASSERT_EQ(doc["devices"].size(), 1u);
  ASSERT_EQ(doc["devices"][0]["problems"].size(), 2u);
  EXPECT_EQ(doc["devices"][0]["problems"][1]["m"], 2);
  EXPECT_TRUE(doc["devices"][0]["problems"][1]["winner"].is_string());

  // bench --json re-times those winners: one check per problem, naming the stored winner (in
  // the database's order, which is the order the run tuned them: not the summary's).
  const VktuneResult bench =
      vktune("bench --plain --variant-budget 0.01 --json --db " + quoted(dir.file("b.db")), "",
             "2>" + quoted(err));
  ASSERT_EQ(bench.exit_code, 0) << slurp_file(err);
  const auto checks = nlohmann::json::parse(bench.output);
  EXPECT_EQ(checks["format"], "vktune-bench");
  ASSERT_EQ(checks["checks"].size(), 2u) << bench.output;
  std::map<std::string, std::string> stored;  // "rms_norm M=2 N=256" -> the summary's winner
  for (const auto& p : doc["devices"][0]["problems"]) {
    stored["rms_norm M=" + std::to_string(p["m"].get<int>()) + " N=256"] = p["winner"];
  }
  for (const auto& c : checks["checks"]) {
    EXPECT_EQ(c["winner"], stored.at(c["problem"])) << bench.output;
    EXPECT_GT(c["stored_ns"].get<double>(), 0);
    EXPECT_GT(c["retimed_ns"].get<double>(), 0) << "the winner was not re-timed";
  }
  EXPECT_NE(slurp_file(err).find("vktune bench: 2 problems"), std::string::npos) << slurp_file(err);
}

// tune's closing table is the run's problems; the database's others (an earlier run's) are the
// report's to show. And a finished run leaves nothing beside the database.
TEST(VktuneTuneOutput, ClosingTableListsTheRunsProblemsOnly) {
  TempDir dir;
  const std::string db = quoted(dir.file("a.db"));
  const std::string err = "2>" + quoted(dir.file("stderr.txt"));
  ASSERT_EQ(vktune("tune " + kShapes + " --db " + db, "", err).exit_code, 0);
  const VktuneResult second = vktune(
      "tune --shapes smoke --ops rms_norm --m 4 --plain --variant-budget 0.01 --json --db " + db,
      "", err);
  ASSERT_EQ(second.exit_code, 0) << slurp_file(dir.file("stderr.txt"));
  const auto doc = nlohmann::json::parse(second.output);
  ASSERT_EQ(doc["devices"].size(), 1u);
  ASSERT_EQ(doc["devices"][0]["problems"].size(), 1u) << second.output;
  EXPECT_EQ(doc["devices"][0]["problems"][0]["m"], 4);
  const VktuneResult report =
      vktune("report --format summary-json -o - --db " + db, "", err);
  ASSERT_EQ(report.exit_code, 0);
  EXPECT_EQ(nlohmann::json::parse(report.output)["devices"][0]["problems"].size(), 3u);
  EXPECT_FALSE(std::filesystem::exists(dir.file("a.db") + "-runs.lock"));
}

// `lookup` answers attention too: --heads and --kv-heads make an sdpa query, found exactly in a
// database tuned on it; an sdpa query without heads, or a linear one with them, is refused.
TEST(VktuneTuneOutput, LookupAnswersAnAttentionQuery) {
  TempDir dir;
  const std::string shapes = dir.file("sdpa.json");
  std::ofstream(shapes) << R"({"problems": [{"op": "sdpa", "heads": 4, "kv_heads": 1,)"
                        << R"( "head_dim": 64, "m": [1], "context": [16]}]})";
  const std::string db = quoted(dir.file("a.db"));
  const VktuneResult tuned = vktune("tune --shapes " + quoted(shapes) +
                                    " --ops sdpa --families sdpa_naive --plain --variant-budget 0.01 --db " + db);
  ASSERT_EQ(tuned.exit_code, 0) << tuned.output;

  const std::string query = "lookup --db " + db + " --op sdpa --m 1 --n 16 --k 64";
  const VktuneResult found = vktune(query + " --heads 4 --kv-heads 1 --json", "", "2>/dev/null");
  ASSERT_EQ(found.exit_code, 0) << found.output;
  const auto j = nlohmann::json::parse(found.output);
  EXPECT_EQ(j["selection"]["shape_match"], "exact") << found.output;
  EXPECT_EQ(j["selection"]["variant_key"].get<std::string>().rfind("sdpa_naive[", 0), 0u);

  const VktuneResult headless = vktune(query);
  EXPECT_NE(headless.exit_code, 0);
  EXPECT_NE(headless.output.find("heads"), std::string::npos) << headless.output;
  const VktuneResult linear =
      vktune("lookup --db " + db + " --op q4gsw --m 1 --n 64 --k 64 --gs 32 --heads 4");
  EXPECT_NE(linear.exit_code, 0);
  EXPECT_NE(linear.output.find("heads"), std::string::npos) << linear.output;
}

}  // namespace
}  // namespace vktune::testing
