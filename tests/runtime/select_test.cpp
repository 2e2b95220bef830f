// Every fallback path of Snapshot::select, on fake devices and fake tuned problems.
#include <gtest/gtest.h>

#include <cmath>

#include "runtime/rank.h"
#include "runtime/snapshot.h"
#include "tests/runtime/fake_catalog.h"

namespace vktune::runtime {
namespace {

using testing::FakeDb;
using testing::q4;
using testing::query_for;

class Select : public ::testing::Test {
 protected:
  FakeDb db;
  std::shared_ptr<const Snapshot> snap = db.snapshot();
};

TEST_F(Select, ExactDeviceExactShape) {
  const Selection s = snap->select(query_for(db.a), q4(1, 4096, 4096));
  ASSERT_TRUE(s.ok()) << s.error;
  EXPECT_EQ(s.variant_key, "q4gsw_gemv[layout=raw,wg=128,rows=4,load=u32x4,reduce=subgroup]");
  EXPECT_EQ(s.family, "q4gsw_gemv");
  EXPECT_EQ(s.device_match, DeviceMatch::exact);
  EXPECT_EQ(s.shape_match, ShapeMatch::exact);
  EXPECT_EQ(s.median_ns, 1000.0);
  EXPECT_EQ(s.matched_device_name, "A");
  EXPECT_EQ(s.spirv.size(), 24u);
  EXPECT_EQ(s.constraints.m_max, 1u);
  EXPECT_EQ(s.shape_distance, 0.0);
}

TEST_F(Select, ExactDeviceNearestShape) {
  const Selection s = snap->select(query_for(db.a), q4(1, 4000, 4096));
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s.device_match, DeviceMatch::exact);
  EXPECT_EQ(s.shape_match, ShapeMatch::nearest);
  EXPECT_EQ(s.family, "q4gsw_gemv");
  EXPECT_EQ(s.matched_m, 1u);
  EXPECT_EQ(s.matched_n, 4096u);
  EXPECT_EQ(s.matched_k, 4096u);
  EXPECT_NEAR(s.shape_distance, 2 * std::log(4096.0 / 4000.0), 1e-12);  // N counts twice M
}

TEST_F(Select, NearestSkipsAWinnerIllegalForTheQuery) {
  // Nearest tuned problem is (4, 1024, 1024), but its winner allows M <= 4 only; (1, 4096,
  // 4096)'s winner allows M == 1 only; (64, 4096, 4096)'s tiled winner is legal.
  const Selection s = snap->select(query_for(db.a), q4(16, 1024, 1024));
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s.shape_match, ShapeMatch::nearest);
  EXPECT_EQ(s.variant_key, "q4gsw_tiled[layout=packed,tm=8,tn=4,wg=128,bk=32]");
  EXPECT_EQ(s.matched_m, 64u);
  EXPECT_NEAR(s.shape_distance, 3 * std::log(4.0), 1e-12);  // sqrt(1 + 2^2 + 2^2) ln 4
}

TEST_F(Select, NearestTakesTheIllegalOnesNeighbourWhenLegal) {
  const Selection s = snap->select(query_for(db.a), q4(2, 1024, 1024));
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s.matched_m, 4u);  // M=2 is within the small-M winner's m_max
  EXPECT_EQ(s.median_ns, 300.0);
}

TEST_F(Select, NoLegalTunedWinnerFallsToBuiltin) {
  // N=4100 is not a multiple of 8 (tiled), and M=16 rules out both gemv winners.
  const Selection s = snap->select(query_for(db.a), q4(16, 4100, 4096));
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s.device_match, DeviceMatch::builtin);
  EXPECT_EQ(s.shape_match, ShapeMatch::builtin);
  EXPECT_EQ(s.variant_key, "q4gsw_tiled[layout=raw,tm=4,tn=4,wg=64,bk=0]");
}

TEST_F(Select, OtherDriverPrefersNewestAndIsFlagged) {
  DeviceQuery q = query_for(db.a);
  q.driver_version = 95;  // neither 100 nor 90
  const Selection s = snap->select(q, q4(1, 4096, 4096));
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s.device_match, DeviceMatch::other_driver);
  EXPECT_EQ(s.matched_driver_version, 100u);
  EXPECT_EQ(s.matched_device_name, "A");
  EXPECT_EQ(s.shape_match, ShapeMatch::exact);
}

TEST_F(Select, ExactOldDriverUsesItsOwnWinner) {
  const Selection s = snap->select(query_for(db.a_old), q4(1, 4096, 4096));
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s.device_match, DeviceMatch::exact);
  EXPECT_EQ(s.family, "q4gsw_tiled");
  EXPECT_EQ(s.median_ns, 1500.0);
}

TEST_F(Select, OtherPipelineCacheUuidIsOtherDriver) {
  DeviceQuery q = query_for(db.a);
  q.pipeline_cache_uuid[0] ^= 0xff;
  EXPECT_EQ(snap->select(q, q4(1, 4096, 4096)).device_match, DeviceMatch::other_driver);
}

TEST_F(Select, SameVendorAndTypeWhenDeviceUnknown) {
  DeviceQuery q = query_for(db.c);
  q.device_id = 0x7777;
  q.driver_version = 1;
  const Selection s = snap->select(q, q4(64, 4096, 4096));
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s.device_match, DeviceMatch::same_vendor_type);
  EXPECT_EQ(s.matched_device_name, "C");
  EXPECT_EQ(s.median_ns, 20000.0);
}

TEST(SelectKin, AKinThatTunedTheShapeAnswersWhereTheDeviceTunedOnlyFarShapes) {
  // B tuned one shape, (1, 1024, 1024); A, its kin (same vendor and type), tuned (1, 4096, 4096).
  FakeDb db;
  const int64_t b = db.store.upsert_device(db.b);
  const int64_t far = db.store.upsert_problem(testing::fake_problem(1, 1024, 1024));
  const int64_t gemv = db.store.upsert_kernel(testing::fake_kernel(
      "q4gsw_gemv[layout=packed,wg=64,rows=8,load=u32x4,reduce=shared]",
      R"({"k_multiple":8,"gs_multiple":8,"n_multiple":1,"m_max":4,"m_min":1})"));
  db.store.add_measurement(testing::ok_measurement(db.store.begin_run({}), b, far, gemv, 250));
  const auto snap = db.snapshot();

  // B's own shape lies 2 sqrt(2) ln 4 away, A's is exact: A answers, and says so.
  const Selection kin = snap->select(query_for(db.b), q4(1, 4096, 4096));
  ASSERT_TRUE(kin.ok()) << kin.error;
  ASSERT_GT(2 * std::sqrt(2.0) * std::log(4.0), kKinDistance);
  EXPECT_EQ(kin.device_match, DeviceMatch::same_vendor_type);
  EXPECT_EQ(kin.matched_device_name, "A");
  EXPECT_EQ(kin.shape_match, ShapeMatch::exact);
  EXPECT_EQ(kin.median_ns, 1000.0);

  // Near B's own shape, B answers, though A's (1, 4096, 4096) is a tuned shape too.
  const Selection own = snap->select(query_for(db.b), q4(1, 1100, 1024));
  ASSERT_TRUE(own.ok()) << own.error;
  EXPECT_EQ(own.device_match, DeviceMatch::exact);
  EXPECT_EQ(own.matched_device_name, "B");
  EXPECT_EQ(own.median_ns, 250.0);
}

TEST_F(Select, SameVendorOtherTypeIsNotAMatch) {
  DeviceQuery q = query_for(db.c);
  q.device_id = 0x7777;
  q.device_type = DeviceType::discrete;
  EXPECT_EQ(snap->select(q, q4(64, 4096, 4096)).device_match, DeviceMatch::builtin);
}

TEST_F(Select, UnknownVendorGetsBuiltinRouting) {
  DeviceQuery q;
  q.vendor_id = 0x8086;
  const Selection gemv = snap->select(q, q4(1, 4096, 4096));
  ASSERT_TRUE(gemv.ok());
  EXPECT_EQ(gemv.device_match, DeviceMatch::builtin);
  EXPECT_EQ(gemv.shape_match, ShapeMatch::builtin);
  EXPECT_EQ(gemv.variant_key, "q4gsw_gemv[layout=raw,wg=64,rows=1,load=u32,reduce=shared]");
  EXPECT_EQ(gemv.knobs_json, R"({"layout":"raw","wg":64,"rows":1,"load":"u32","reduce":"shared"})");
  EXPECT_FALSE(gemv.median_ns);
  ASSERT_GE(gemv.spirv.size(), 4u);  // the runtime ships the built-ins' SPIR-V
  EXPECT_EQ(gemv.spirv[0], 0x03);    // the SPIR-V magic 0x07230203, little-endian
  EXPECT_EQ(gemv.spirv[3], 0x07);
}

TEST_F(Select, OtherOpOnAMatchedDeviceSearchesFurther) {
  // Nothing of A's vendor has rms_norm tuned (only AMD's C has): built-in routing.
  const Selection s = snap->select(query_for(db.a), ProblemQuery{"rms_norm", "f32", 8, 4096, 4096, 0});
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s.shape_match, ShapeMatch::builtin);
  EXPECT_EQ(s.variant_key, "rms_norm[vec=4,wg=256]");
  const Selection tuned = snap->select(query_for(db.c), ProblemQuery{"rms_norm", "f32", 8, 4096, 4096, 0});
  EXPECT_EQ(tuned.variant_key, "rms_norm[vec=4,wg=512]");
  EXPECT_TRUE(tuned.spirv.empty());  // stored without SPIR-V
}

TEST_F(Select, ExactDeviceNearestBeatsOtherDriverExact) {
  // A-old tuned (1, 4096, 2048) exactly; A has only a nearest answer for it: A wins.
  const Selection s = snap->select(query_for(db.a), q4(1, 4096, 2048));
  EXPECT_EQ(s.device_match, DeviceMatch::exact);
  EXPECT_EQ(s.shape_match, ShapeMatch::nearest);
}

TEST_F(Select, InvalidQueriesReturnAnError) {
  const DeviceQuery d = query_for(db.a);
  const std::pair<ProblemQuery, const char*> cases[] = {
      {q4(0, 4096, 4096), "non-zero"},
      {q4(1, 0, 4096), "non-zero"},
      {q4(1, 4096, 4095, 5), "odd"},
      {q4(1, 4096, 4096, 0), "group_size"},
      {q4(1, 4096, 4000, 64), "multiple of group_size"},
      {ProblemQuery{"matmul", "f32", 1, 1, 1, 0}, "unknown op"},
      {ProblemQuery{"rms_norm", "f32", 1, 8, 16, 0}, "K == N"},
      {ProblemQuery{"q4gsw", "", 1, 8, 16, 8}, "dtype"},
  };
  for (const auto& [q, needle] : cases) {
    const Selection s = snap->select(d, q);
    EXPECT_EQ(s.status, Status::invalid_query) << needle;
    EXPECT_NE(s.error.find(needle), std::string_view::npos) << s.error;
    EXPECT_TRUE(s.variant_key.empty());
  }
}

TEST_F(Select, UntunedDtypeFallsBackToItsBuiltIns) {
  // Device A tuned f32 only: an f16 query gets the f16 built-in, never an f32 winner.
  const Selection s =
      snap->select(query_for(db.a), ProblemQuery{"q4gsw", "f16", 1, 4096, 4096, 32});
  ASSERT_TRUE(s.ok()) << s.error;
  EXPECT_EQ(s.shape_match, ShapeMatch::builtin);
  EXPECT_EQ(s.family, "q4gsw_gemv_f16");
}

// A group size the device never tuned is answered from the nearest tuned one (never as exact,
// its distance counting the group sizes' log ratio), not by the built-in routing.
TEST_F(Select, AnUntunedGroupSizeIsAnsweredFromTheNearestTunedOne) {
  const Selection s = snap->select(query_for(db.a), q4(1, 4096, 4096, 64));
  ASSERT_TRUE(s.ok()) << s.error;
  EXPECT_EQ(s.device_match, DeviceMatch::exact);
  EXPECT_EQ(s.shape_match, ShapeMatch::nearest);
  EXPECT_EQ(s.variant_key, "q4gsw_gemv[layout=raw,wg=128,rows=4,load=u32x4,reduce=subgroup]");
  EXPECT_EQ(s.matched_group_size, 32u);
  EXPECT_NEAR(s.shape_distance, std::log(2.0), 1e-12);
}

TEST(SelectGroupSize, NearestInLogScaleTheLargerOnATie) {
  db::Store store = db::Store::open_memory();
  const db::DeviceRecord a = FakeDb::device(0x10de, 0x2684, 100, "discrete", "A");
  const auto device = store.upsert_device(a);
  const auto k32 = store.upsert_kernel(testing::fake_kernel("q4gsw_tiled[layout=raw,tm=4,tn=4,wg=64,bk=0]"));
  const auto k128 = store.upsert_kernel(testing::fake_kernel("q4gsw_tiled[layout=raw,tm=8,tn=4,wg=64,bk=0]"));
  const auto run = store.begin_run({});
  store.add_measurement(testing::ok_measurement(
      run, device, store.upsert_problem(testing::fake_problem(8, 4096, 4096, 32)), k32, 100));
  store.add_measurement(testing::ok_measurement(
      run, device, store.upsert_problem(testing::fake_problem(8, 4096, 4096, 128)), k128, 100));
  const auto snap = testing::snapshot_of(store, "gs");
  const auto answer = [&](uint32_t gs) { return snap->select(query_for(a), q4(8, 4096, 4096, gs)); };
  EXPECT_EQ(answer(32).shape_match, ShapeMatch::exact);
  EXPECT_EQ(answer(128).shape_match, ShapeMatch::exact);
  EXPECT_EQ(answer(16).matched_group_size, 32u);
  EXPECT_EQ(answer(64).matched_group_size, 128u);  // as far from 32 as from 128
  EXPECT_EQ(answer(256).matched_group_size, 128u);
  EXPECT_EQ(answer(256).variant_key, "q4gsw_tiled[layout=raw,tm=8,tn=4,wg=64,bk=0]");
  EXPECT_EQ(answer(256).shape_match, ShapeMatch::nearest);
  // An op without group sizes is untouched: FakeDb's rms_norm stays exact.
  FakeDb db;
  const Selection norm = db.snapshot()->select(query_for(db.c), {"rms_norm", "f32", 8, 4096, 4096, 0});
  EXPECT_EQ(norm.shape_match, ShapeMatch::exact);
}

TEST_F(Select, StringsAreNulTerminated) {
  const Selection s = snap->select(query_for(db.a), q4(1, 4096, 4096));
  EXPECT_EQ(s.variant_key.data()[s.variant_key.size()], '\0');
  EXPECT_EQ(s.layout.data()[s.layout.size()], '\0');
}

}  // namespace
}  // namespace vktune::runtime
