// Queries keyed by dtype: an f16 query gets f16 answers (tuned, nearest or built-in), never an
// f32 variant; an unknown dtype is invalid; the dispatch contract sizes f16 buffers in 2-byte
// elements and refuses a variant of the other dtype. Through the C++ and the C API.
#include <gtest/gtest.h>

#include "runtime/builtin.h"
#include "runtime/dispatch.h"
#include "runtime/vktune_runtime.h"
#include "tests/runtime/fake_catalog.h"

namespace vktune::runtime {
namespace {

constexpr std::array<uint32_t, 3> kLargeGrid{65535, 65535, 65535};
constexpr const char* kGemvF32 = "q4gsw_gemv[layout=raw,wg=128,rows=4,load=u32x4,reduce=subgroup]";
constexpr const char* kGemvF16 =
    "q4gsw_gemv_f16[layout=packed,wg=64,rows=2,load=u32x4,reduce=shared]";

ProblemQuery q4(const char* dtype, uint32_t m, uint32_t n, uint32_t k) {
  return {"q4gsw", dtype, m, n, k, 32};
}

// Device A tuned (1, 4096, 4096) in both dtypes, each with a winner of its own dtype.
struct TwoDtypes {
  db::Store store = db::Store::open_memory();
  db::DeviceRecord a = testing::FakeDb::device(0x10de, 0x2684, 100, "discrete", "A");
  TwoDtypes() {
    const char* constraints = R"({"k_multiple":8,"gs_multiple":8,"n_multiple":1,"m_max":1})";
    const auto f32 = store.upsert_kernel(testing::fake_kernel(kGemvF32, constraints));
    const auto f16 = store.upsert_kernel(testing::fake_kernel(kGemvF16, constraints));
    const auto device = store.upsert_device(a);
    const auto p32 = store.upsert_problem(testing::fake_problem(1, 4096, 4096));
    db::Problem half = testing::fake_problem(1, 4096, 4096);
    half.dtype = "f16";
    const auto p16 = store.upsert_problem(half);
    const auto run = store.begin_run({});
    store.add_measurement(testing::ok_measurement(run, device, p32, f32, 1000));
    store.add_measurement(testing::ok_measurement(run, device, p16, f16, 600));
  }
};

TEST(SelectDtype, EachDtypeGetsItsOwnWinner) {
  TwoDtypes db;
  std::string error;
  const auto snap = Snapshot::from_catalog(db.store.catalog(), &error);
  ASSERT_TRUE(snap) << error;
  const DeviceQuery device = testing::query_for(db.a);
  const Selection f32 = snap->select(device, q4("f32", 1, 4096, 4096));
  ASSERT_TRUE(f32.ok()) << f32.error;
  EXPECT_EQ(f32.variant_key, kGemvF32);
  const Selection f16 = snap->select(device, q4("f16", 1, 4096, 4096));
  ASSERT_TRUE(f16.ok()) << f16.error;
  EXPECT_EQ(f16.variant_key, kGemvF16);
  EXPECT_EQ(f16.shape_match, ShapeMatch::exact);
  EXPECT_EQ(f16.median_ns, 600.0);
  // An untuned f16 shape: the nearest f16 problem's winner.
  const Selection near = snap->select(device, q4("f16", 1, 4000, 4096));
  ASSERT_TRUE(near.ok()) << near.error;
  EXPECT_EQ(near.shape_match, ShapeMatch::nearest);
  EXPECT_EQ(near.variant_key, kGemvF16);
}

TEST(SelectDtype, BuiltInRoutingServesF16WithItsOwnSpirv) {
  Selection f32, f16;
  select_builtin(q4("f32", 1, 64, 64), f32);
  select_builtin(q4("f16", 1, 64, 64), f16);
  ASSERT_TRUE(f32.ok() && f16.ok()) << f16.error;
  EXPECT_EQ(f16.variant_key, "q4gsw_gemv_f16[layout=raw,wg=64,rows=1,load=u32,reduce=shared]");
  EXPECT_EQ(f16.family, "q4gsw_gemv_f16");
  EXPECT_FALSE(f16.spirv.empty());
  EXPECT_NE(std::vector<uint8_t>(f16.spirv.begin(), f16.spirv.end()),
            std::vector<uint8_t>(f32.spirv.begin(), f32.spirv.end()));
  Selection norm;
  select_builtin({"rms_norm", "f16", 2, 64, 64, 0}, norm);
  ASSERT_TRUE(norm.ok()) << norm.error;
  EXPECT_EQ(norm.variant_key, "rms_norm_f16[vec=4,wg=256]");
}

TEST(SelectDtype, UnknownDtypeIsAnInvalidQuery) {
  testing::FakeDb db;
  const auto snap = db.snapshot();
  const Selection s = snap->select(testing::query_for(db.a), q4("bf16", 1, 4096, 4096));
  EXPECT_EQ(s.status, Status::invalid_query);
  EXPECT_EQ(s.error, "unknown dtype; expected \"f32\" or \"f16\"");
  EXPECT_TRUE(s.variant_key.empty());

  vktune_problem_query p{"q4gsw", "bf16", 1, 64, 64, 32};
  vktune_device_query d{};
  vktune_selection c{};
  EXPECT_EQ(vktune_select(nullptr, &d, &p, &c), VKTUNE_INVALID_QUERY);
  p.dtype = "f16";
  ASSERT_EQ(vktune_select(nullptr, &d, &p, &c), VKTUNE_OK);
  EXPECT_STREQ(c.variant_key, "q4gsw_gemv_f16[layout=raw,wg=64,rows=1,load=u32,reduce=shared]");
}

TEST(SelectDtype, DispatchSizesF16BuffersInTwoByteElements) {
  const ProblemQuery q = q4("f16", 2, 64, 256);
  Selection s;
  select_builtin(q, s);
  const DispatchPlan plan = plan_dispatch(s, q, kLargeGrid);
  ASSERT_TRUE(plan.ok()) << plan.error;
  const uint64_t expected[] = {2 * 256 * 2, 64 * 128, 8 * 64 * 2, 0, 2 * 64 * 2, 0};
  for (uint32_t i = 0; i < 6; ++i) EXPECT_EQ(plan.bindings[i].bytes, expected[i]) << i;

  // An f32 variant for an f16 problem (and the reverse) is refused, not planned.
  const DispatchPlan wrong = plan_dispatch(s, q4("f32", 2, 64, 256), kLargeGrid);
  EXPECT_EQ(wrong.status, Status::invalid_query);
  EXPECT_NE(wrong.error.find("computes f16; the problem is f32"), std::string::npos) << wrong.error;
}

}  // namespace
}  // namespace vktune::runtime
