// The environment switches change answers: VKTUNE_DB layers a user's database over the
// application's, VKTUNE_FORCE_BUILTIN answers with the built-ins, VKTUNE_LOG logs each
// selection; a VKTUNE_DB path that does not load is an error naming it.
#include "runtime/environment.h"

#include <gtest/gtest.h>

#include <cstdlib>

#include "db/json_io.h"
#include "tests/runtime/fake_catalog.h"

namespace vktune::runtime {
namespace {

using testing::FakeDb;
using testing::q4;
using testing::query_for;
using testing::UserDb;

// Sets the switches for one test and clears them after, so no test sees another's.
class EnvironmentTest : public ::testing::Test {
 protected:
  void TearDown() override {
    for (const char* name : {"VKTUNE_DB", "VKTUNE_FORCE_BUILTIN", "VKTUNE_LOG"}) unsetenv(name);
  }
  std::shared_ptr<const Layers> from_environment() {
    std::string error;
    auto layers = layers_from_environment({system_db.snapshot("system.db")}, &error);
    EXPECT_TRUE(layers) << error;
    return layers;
  }

  testing::TempDir dir;
  FakeDb system_db;
  UserDb user_db;
};

TEST_F(EnvironmentTest, WithoutSwitchesTheApplicationsDatabaseAnswers) {
  const Selection s = from_environment()->select(query_for(user_db.a), q4(1, 4096, 4096));
  EXPECT_EQ(s.source, "system.db");
  EXPECT_EQ(s.median_ns, 1000.0);
}

TEST_F(EnvironmentTest, DbPathsAreLayeredOverTheApplicationsFirstOnTop) {
  const std::string user = dir.file("user.json");
  testing::write_file(user, db::export_json_text(user_db.store));
  const std::string other = dir.file("other.json");
  testing::write_file(other, db::export_json_text(system_db.store));
  setenv("VKTUNE_DB", (user + ":" + other).c_str(), 1);
  const auto layers = from_environment();
  EXPECT_EQ(layers->snapshots().size(), 3u);
  const Selection s = layers->select(query_for(user_db.a), q4(1, 4096, 4096));
  EXPECT_EQ(s.variant_key, UserDb::kWinner);
  EXPECT_EQ(s.layer, 0);
  EXPECT_EQ(s.source, user);
}

TEST_F(EnvironmentTest, ForceBuiltinChangesTheAnswer) {
  setenv("VKTUNE_FORCE_BUILTIN", "1", 1);
  const Selection s = from_environment()->select(query_for(user_db.a), q4(1, 4096, 4096));
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s.device_match, DeviceMatch::builtin);
  EXPECT_FALSE(s.median_ns);
  setenv("VKTUNE_FORCE_BUILTIN", "0", 1);  // "0" is off
  EXPECT_EQ(from_environment()->select(query_for(user_db.a), q4(1, 4096, 4096)).median_ns, 1000.0);
}

TEST_F(EnvironmentTest, LogWritesEachSelectionToStderr) {
  setenv("VKTUNE_LOG", "1", 1);
  const auto layers = from_environment();
  ::testing::internal::CaptureStderr();
  (void)layers->select(query_for(user_db.a), q4(1, 4096, 4096));
  (void)layers->select(query_for(user_db.a), q4(1, 4096, 4095));
  const std::string log = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(log.find("M=1 N=4096 K=4096 gs=32 -> q4gsw_gemv["), std::string::npos) << log;
  EXPECT_NE(log.find("layer 0 system.db)\n"), std::string::npos) << log;
  EXPECT_NE(log.find("K=4095 gs=32 -> invalid_query: "), std::string::npos) << log;
}

TEST_F(EnvironmentTest, ADbPathThatDoesNotLoadIsAnError) {
  const std::string missing = dir.file("missing.db");
  setenv("VKTUNE_DB", missing.c_str(), 1);
  std::string error;
  EXPECT_FALSE(layers_from_environment({}, &error));
  EXPECT_EQ(error.rfind("VKTUNE_DB: " + missing, 0), 0u) << error;
}

}  // namespace
}  // namespace vktune::runtime
