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
