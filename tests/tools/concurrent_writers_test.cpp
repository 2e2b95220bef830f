// Many `vktune import` processes started together on a database path that does not exist yet:
// every one succeeds (they serialise on SQLite's busy timeout) and the result holds the
// document once, since importing a run again adds nothing.
#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

#include "tests/tools/report_fixture.h"
#include "tests/tools/run_vktune.h"

namespace vktune::report {
namespace {

using namespace vktune::testing;

TEST(VktuneConcurrentWriters, ImportsOntoANewPathAllSucceed) {
  TempDir dir;
  {
    db::Store source = db::Store::open(dir.file("source.db"));
    build_synthetic(source);
  }
  const std::string json = dir.file("source.json");
  const VktuneResult exported =
      vktune("export --db " + quoted(dir.file("source.db")) + " -o " + quoted(json));
  ASSERT_EQ(exported.exit_code, 0) << exported.output;
  const size_t expected = db::Store::open(dir.file("source.db"), db::OpenMode::read_only)
                              .measurements()
                              .size();

  constexpr int kRounds = 5;
  constexpr int kWriters = 8;
  int failures = 0;
  for (int round = 0; round < kRounds; ++round) {
    const std::string db = dir.file("new" + std::to_string(round) + ".db");
    std::vector<VktuneResult> results(kWriters);
    std::vector<std::thread> writers;
    for (int w = 0; w < kWriters; ++w) {
      writers.emplace_back([&, w] { results[w] = vktune("import " + quoted(json) + " --db " + quoted(db)); });
    }
    for (std::thread& t : writers) t.join();
    for (const VktuneResult& r : results) {
      EXPECT_EQ(r.exit_code, 0) << "round " << round << ": " << r.output;
      failures += r.exit_code != 0;
    }
    EXPECT_EQ(db::Store::open(db, db::OpenMode::read_only).measurements().size(), expected);
  }
  EXPECT_EQ(failures, 0) << "of " << kRounds * kWriters << " imports";
}

}  // namespace
}  // namespace vktune::report
