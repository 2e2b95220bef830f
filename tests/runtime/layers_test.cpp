// Layers: a user's database over the shipped system one. The user's tuning wins where it is as
// close as the system's, the system answers what only it tuned, and every answer names its
// layer.
#include "runtime/layers.h"

#include <gtest/gtest.h>

#include "tests/runtime/fake_catalog.h"

namespace vktune::runtime {
namespace {

using testing::FakeDb;
using testing::q4;
using testing::query_for;
using testing::UserDb;

class LayersTest : public ::testing::Test {
 protected:
  FakeDb system_db;
  UserDb user_db;
  Layers layers{{user_db.snapshot("user.db"), system_db.snapshot("system.db")}};
};

// `s` is a tuned answer measured at `median_ns`, from layer `layer` (database `source`).
void expect_answer(const Selection& s, double median_ns, int layer, std::string_view source) {
  ASSERT_TRUE(s.ok()) << s.error;
  EXPECT_EQ(s.median_ns, median_ns);
  EXPECT_EQ(s.layer, layer);
  EXPECT_EQ(s.source, source);
}

TEST_F(LayersTest, TheUsersTuningWinsOverTheSystemDatabase) {
  const Selection s = layers.select(query_for(user_db.a), q4(1, 4096, 4096));
  expect_answer(s, 900.0, 0, "user.db");
  EXPECT_EQ(s.variant_key, UserDb::kWinner);
  // Alone, the system database answers the same query with its own winner.
  const Selection system = system_db.snapshot("system.db")->select(query_for(user_db.a), q4(1, 4096, 4096));
  EXPECT_NE(system.variant_key, UserDb::kWinner);
}

TEST_F(LayersTest, WhatOnlyTheSystemTunedComesFromIt) {
  // The user tuned M=1 only: its answer for M=64 would be a nearest shape, the system's is exact.
  const Selection s = layers.select(query_for(user_db.a), q4(64, 4096, 4096));
  expect_answer(s, 9000.0, 1, "system.db");
  EXPECT_EQ(s.shape_match, ShapeMatch::exact);
  // A device only the system database knows.
  const Selection c = layers.select(query_for(system_db.c), q4(64, 4096, 4096));
  EXPECT_EQ(c.device_match, DeviceMatch::exact);
  EXPECT_EQ(c.layer, 1);
}

TEST(LayersKin, AKinsNearerShapeInAnotherLayerAnswersForAFarOwnShape) {
  // The top layer holds device B tuned at (1, 1024, 1024) alone; the system database below holds
  // its kin A (same vendor and type), tuned at (1, 4096, 4096).
  FakeDb system_db;
  db::Store own = db::Store::open_memory();
  const int64_t b = own.upsert_device(system_db.b);
  const int64_t gemv = own.upsert_kernel(testing::fake_kernel(
      "q4gsw_gemv[layout=packed,wg=64,rows=8,load=u32x4,reduce=shared]",
      R"({"k_multiple":8,"gs_multiple":8,"n_multiple":1,"m_max":4,"m_min":1})"));
  own.add_measurement(testing::ok_measurement(
      own.begin_run({}), b, own.upsert_problem(testing::fake_problem(1, 1024, 1024)), gemv, 250));
  const Layers layers{{testing::snapshot_of(own, "b.db"), system_db.snapshot("system.db")}};

  const Selection kin = layers.select(query_for(system_db.b), q4(1, 4096, 4096));
  expect_answer(kin, 1000.0, 1, "system.db");
  EXPECT_EQ(kin.device_match, DeviceMatch::same_vendor_type);
  EXPECT_EQ(kin.shape_match, ShapeMatch::exact);
  // Near B's own shape, B's layer answers.
  const Selection near = layers.select(query_for(system_db.b), q4(1, 1100, 1024));
  expect_answer(near, 250.0, 0, "b.db");
  EXPECT_EQ(near.device_match, DeviceMatch::exact);
}

TEST_F(LayersTest, BuiltInAndInvalidAnswersNameNoLayer) {
  const Selection unknown = layers.select(DeviceQuery{}, q4(1, 4096, 4096));
  ASSERT_TRUE(unknown.ok());
  EXPECT_EQ(unknown.device_match, DeviceMatch::builtin);
  EXPECT_EQ(unknown.layer, -1);
  EXPECT_EQ(unknown.source, "");
  const Selection invalid = layers.select(query_for(user_db.a), q4(1, 4096, 4095));
  EXPECT_EQ(invalid.status, Status::invalid_query);
  EXPECT_EQ(invalid.layer, -1);
}

TEST_F(LayersTest, ForcedBuiltinsIgnoreEveryLayer) {
  const Layers forced({user_db.snapshot(), system_db.snapshot()}, {.force_builtin = true});
  const Selection s = forced.select(query_for(user_db.a), q4(1, 4096, 4096));
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s.device_match, DeviceMatch::builtin);
  EXPECT_EQ(s.layer, -1);
}

TEST_F(LayersTest, LoggingWritesOneLineWithTheProvenance) {
  const Layers logged({user_db.snapshot("user.db"), system_db.snapshot("system.db")}, {.log = true});
  ::testing::internal::CaptureStderr();
  (void)logged.select(query_for(user_db.a), q4(64, 4096, 4096));
  const std::string line = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(line,
            "vktune: q4gsw f32 M=64 N=4096 K=4096 gs=32 -> "
            "q4gsw_tiled[layout=packed,tm=8,tn=4,wg=128,bk=32] (device exact, shape exact, "
            "layer 1 system.db)\n");
  ::testing::internal::CaptureStderr();
  (void)layers.select(query_for(user_db.a), q4(64, 4096, 4096));
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
}

}  // namespace
}  // namespace vktune::runtime
