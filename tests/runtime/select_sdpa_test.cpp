// sdpa lookups: tuned context lengths are buckets, any L gets the nearest (log-distance) of
// the same op, head counts and dtype; untuned head counts fall to the built-in routing, which
// sends head dims past the online kernels' 256 to the baseline; bad queries are errors.
#include <gtest/gtest.h>

#include "runtime/builtin.h"
#include "runtime/query_problem.h"
#include "runtime/snapshot.h"
#include "tests/runtime/fake_catalog.h"

namespace vktune::runtime {
namespace {

using testing::FakeDb;
using testing::query_for;

ProblemQuery attention(uint32_t m, uint32_t length, uint32_t heads, uint32_t kv_heads,
                       uint32_t head_dim) {
  ProblemQuery q{"sdpa", "f32", m, length, head_dim, 0};
  q.heads = heads;
  q.kv_heads = kv_heads;
  return q;
}

db::Problem tuned(uint32_t length) { return {0, "sdpa", "f32", 1, length, 128, 0, 32, 8}; }

class SelectSdpa : public ::testing::Test {
 protected:
  SelectSdpa() {
    const auto fused = db.store.upsert_kernel(testing::fake_kernel(
        "sdpa_fused[vec=4,keys=2,wg=64,qpg=1]", R"({"k_multiple":4,"k_max":256})"));
    const auto split = db.store.upsert_kernel(testing::fake_kernel(
        "sdpa_split[vec=4,keys=1,wg=128,slices=16,qpg=4]", R"({"k_multiple":4,"k_max":256})"));
    const auto device = db.store.upsert_device(db.a);
    const auto run = db.store.begin_run({});
    db.store.add_measurement(
        testing::ok_measurement(run, device, db.store.upsert_problem(tuned(512)), fused, 900));
    db.store.add_measurement(
        testing::ok_measurement(run, device, db.store.upsert_problem(tuned(8192)), split, 5000));
    snap = db.snapshot();
  }
  FakeDb db;
  std::shared_ptr<const Snapshot> snap;
};

TEST_F(SelectSdpa, AnyContextLengthGetsTheNearestBucket) {
  Selection s = snap->select(query_for(db.a), attention(1, 512, 32, 8, 128));
  EXPECT_EQ(s.shape_match, ShapeMatch::exact);
  EXPECT_EQ(s.family, "sdpa_fused");
  s = snap->select(query_for(db.a), attention(1, 700, 32, 8, 128));
  EXPECT_NE(s.shape_match, ShapeMatch::exact);
  EXPECT_EQ(s.family, "sdpa_fused");
  EXPECT_EQ(s.matched_n, 512u);
  s = snap->select(query_for(db.a), attention(1, 6000, 32, 8, 128));
  EXPECT_EQ(s.family, "sdpa_split");
  EXPECT_EQ(s.matched_n, 8192u);
}

TEST_F(SelectSdpa, OtherHeadCountsAndWideHeadsUseTheBuiltins) {
  Selection s = snap->select(query_for(db.a), attention(1, 512, 24, 8, 128));
  ASSERT_TRUE(s.ok()) << s.error;
  EXPECT_EQ(s.shape_match, ShapeMatch::builtin);
  EXPECT_EQ(s.variant_key, "sdpa_fused[vec=4,keys=1,wg=64,qpg=1]");
  EXPECT_FALSE(s.spirv.empty());  // shipped
  s = snap->select(query_for(db.a), attention(1, 512, 32, 8, 320));
  ASSERT_TRUE(s.ok()) << s.error;
  EXPECT_EQ(s.variant_key, "sdpa_naive[wg=64]");
  s = snap->select(query_for(db.a), attention(1, 512, 32, 8, 42));  // no vec4
  EXPECT_EQ(s.variant_key, "sdpa_fused[vec=1,keys=1,wg=64,qpg=1]");
}

TEST_F(SelectSdpa, BadQueriesAreErrors) {
  for (const ProblemQuery& q : {attention(1, 512, 32, 6, 128), attention(5, 4, 32, 8, 128),
                                attention(1, 0, 32, 8, 128), attention(1, 512, 0, 0, 128)}) {
    const Selection s = snap->select(query_for(db.a), q);
    EXPECT_EQ(s.status, Status::invalid_query) << q.m << " " << q.n << " " << q.heads;
    EXPECT_FALSE(s.error.empty());
  }
  ProblemQuery half = attention(1, 512, 32, 8, 128);
  half.dtype = "f16";
  const Selection s = snap->select(query_for(db.a), half);
  EXPECT_EQ(s.status, Status::invalid_query);
  EXPECT_NE(s.error.find("sdpa is f32-only"), std::string::npos) << s.error;
}

// The one conversion of a query to the catalogue's problem carries the head counts.
TEST(SdpaQueryProblem, ToProblemCarriesTheHeads) {
  const std::optional<kernels::Problem> p = to_problem(attention(2, 700, 32, 8, 128));
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->op, kernels::Op::sdpa);
  EXPECT_EQ(p->heads, 32u);
  EXPECT_EQ(p->kv_heads, 8u);
  EXPECT_EQ(kernels::validate(*p), "");
  EXPECT_EQ(kernels::describe(*p), "sdpa M=2 L=700 Hq=32 Hkv=8 D=128");
}

}  // namespace
}  // namespace vktune::runtime
