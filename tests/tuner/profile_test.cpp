// The --profile table: every stage's seconds, share and cost per variant; "other" is what no
// stage claimed.
#include "tuner/profile.h"

#include <gtest/gtest.h>

namespace vktune::tuner {
namespace {

using std::chrono::milliseconds;

TEST(ProfileTest, RendersEachStageAndTheRemainderAsOther) {
  Profile profile;
  profile.add(Stage::compile, milliseconds(300));
  profile.add(Stage::timing, milliseconds(500));
  profile.add(Stage::timing, milliseconds(100));
  EXPECT_EQ(profile.spent(Stage::timing), milliseconds(600));
  const std::string table = profile.render(milliseconds(1000), 100);
  EXPECT_NE(table.find("compile        0.300   30.0%       3.000"), std::string::npos) << table;
  EXPECT_NE(table.find("timing         0.600   60.0%       6.000"), std::string::npos) << table;
  EXPECT_NE(table.find("other          0.100   10.0%       1.000"), std::string::npos) << table;
  EXPECT_NE(table.find("total          1.000  100.0%      10.000"), std::string::npos) << table;
}

TEST(ProfileTest, TheBriefNamesTheStagesOfATenthOfASecondOrMoreLargestFirst) {
  Profile profile;
  profile.add(Stage::upload, milliseconds(400));
  profile.add(Stage::gate, milliseconds(1500));
  profile.add(Stage::store, milliseconds(50));  // under a tenth: left to "other"
  EXPECT_EQ(profile.brief(milliseconds(2550)), "gate 1.5 s, upload 0.4 s, other 0.6 s");
  profile.add_pool(1382, milliseconds(21200), milliseconds(240300));
  EXPECT_EQ(profile.brief(milliseconds(2550)),
            "gate 1.5 s, upload 0.4 s, other 0.6 s (pool: 1382 pipelines in 21.2 s, CPU 240.3 s)");
  const std::string table = profile.render(milliseconds(2500), 10);
  EXPECT_NE(table.find("pool: 1382 pipelines in 21.2 s, CPU 240.3 s"), std::string::npos)
      << table;
}

TEST(ProfileTest, SinceIsWhatWasSpentAfterTheCopy) {
  Profile profile;
  profile.add(Stage::gate, milliseconds(700));
  profile.add_pool(10, milliseconds(300), milliseconds(900));
  const Profile before = profile;
  profile.add(Stage::gate, milliseconds(200));
  profile.add(Stage::setup, milliseconds(100));
  const Profile delta = profile.since(before);
  EXPECT_EQ(delta.spent(Stage::gate), milliseconds(200));
  EXPECT_EQ(delta.spent(Stage::setup), milliseconds(100));
  EXPECT_EQ(delta.pool_pipelines(), 0u);
  EXPECT_EQ(delta.pool_cpu().count(), 0);
  EXPECT_EQ(delta.brief(milliseconds(300)), "gate 0.2 s, setup 0.1 s, other 0.0 s");
}

TEST(ProfileTest, StageTimerAddsItsLifetime) {
  Profile profile;
  {
    StageTimer timer(profile, Stage::gate);
  }
  EXPECT_GT(profile.spent(Stage::gate).count(), 0);
  EXPECT_EQ(profile.spent(Stage::store).count(), 0);
}

}  // namespace
}  // namespace vktune::tuner
