// `vktune tune --shard`: two shards' databases, merged, hold the problems and coverage the
// unsharded run does; a shard that does not exist is a usage error that writes nothing.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "db/store.h"
#include "tests/temp_dir.h"
#include "tests/tools/coverage_rows.h"
#include "tests/tools/run_vktune.h"

namespace vktune::testing {
namespace {

const std::string kTune =
    "tune --shapes smoke --ops rms_norm --m 1,2,4 --strategy exhaustive --plain "
    "--variant-budget 0.01 ";

TEST(VktuneTuneShard, TwoShardsMergedCoverWhatOneRunCovers) {
  TempDir dir;
  const auto run = [&](const std::string& args) {
    const VktuneResult r = vktune(kTune + args, "", "2>>" + quoted(dir.file("stderr.txt")));
    EXPECT_EQ(r.exit_code, 0) << args;
  };
  run("--db " + quoted(dir.file("all.db")));
  run("--shard 1/2 --db " + quoted(dir.file("s1.db")));
  run("--shard 2/2 --db " + quoted(dir.file("s2.db")));
  ASSERT_EQ(vktune("merge " + quoted(dir.file("s1.db")) + " " + quoted(dir.file("s2.db")) +
                   " -o " + quoted(dir.file("merged.db")))
                .exit_code,
            0);
  const auto whole = covered(dir.file("all.db"));
  EXPECT_EQ(whole.size(), 3u);
  EXPECT_EQ(covered(dir.file("merged.db")), whole);
  EXPECT_LT(covered(dir.file("s1.db")).size(), whole.size()) << "a shard tunes a share, not all";
}

TEST(VktuneTuneShard, AShardThatDoesNotExistIsAUsageErrorThatWritesNothing) {
  TempDir dir;
  for (const char* shard : {"0/2", "3/2", "1/0", "auto", "x"}) {
    const VktuneResult r =
        vktune(kTune + "--shard " + shard + " --db " + quoted(dir.file("a.db")), "", "2>&1");
    EXPECT_EQ(r.exit_code, 2) << shard << ": " << r.output;
    EXPECT_NE(r.output.find("--shard"), std::string::npos) << r.output;
    EXPECT_FALSE(std::filesystem::exists(dir.file("a.db"))) << shard;
  }
}

}  // namespace
}  // namespace vktune::testing
