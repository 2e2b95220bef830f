// sdpa lookups: tuned context lengths are buckets, any L gets the nearest (log-distance) of
// the same op, head counts and dtype; untuned head counts get the nearest tuned head counts'
// variants that are legal for their head group, ranked over every tuned head count's shapes,
// else the built-in routing, which sends head
// dims past the online kernels' 256 to the baseline; f16 queries get f16 variants only; bad
// queries are errors.
#include <gtest/gtest.h>

#include <cmath>
#include <initializer_list>
#include <memory>
#include <string>

#include "kernels/knobs.h"
#include "kernels/problem.h"
#include "runtime/builtin.h"
#include "runtime/dispatch.h"
#include "runtime/rank.h"
#include "runtime/shape_index.h"
#include "runtime/snapshot.h"
#include "runtime/vktune_runtime.h"
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

// A stored sdpa kernel with its real knobs (the runtime reads its catalogue's facts from them) and
// the constraints a database from before head_group_multiple stored.
db::KernelRecord sdpa_kernel(const std::string& key) {
  db::KernelRecord k = testing::fake_kernel(key, R"({"k_multiple":4,"k_max":256})");
  k.knobs_json = kernels::to_json_text(kernels::parse_key(key).knobs);
  return k;
}

class SelectSdpa : public ::testing::Test {
 protected:
  SelectSdpa() {
    const auto fused = db.store.upsert_kernel(sdpa_kernel("sdpa_fused[vec=4,keys=2,wg=64,qpg=1]"));
    const auto split = db.store.upsert_kernel(sdpa_kernel("sdpa_split[vec=4,keys=1,wg=128,slices=16,qpg=4]"));
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

// 64 query heads over 16 KV heads (4 a KV head, as tuned): the tuned 32 / 8's variants, its
// nearest bucket's, where its M x heads rows sit at M = 2 of 32 heads, with the head counts'
// distance in the answer's.
TEST_F(SelectSdpa, OtherHeadCountsGetTheNearestTunedHeadCounts) {
  const Selection s = snap->select(query_for(db.a), attention(1, 6000, 64, 16, 128));
  ASSERT_TRUE(s.ok()) << s.error;
  EXPECT_EQ(s.shape_match, ShapeMatch::nearest);
  EXPECT_EQ(s.variant_key, "sdpa_split[vec=4,keys=1,wg=128,slices=16,qpg=4]");
  EXPECT_EQ(s.matched_n, 8192u);
  EXPECT_EQ(s.matched_heads, 32u);
  EXPECT_EQ(s.matched_kv_heads, 8u);
  EXPECT_NEAR(s.shape_distance,
              std::hypot(std::log(2.0),
                         ShapeIndex::axis_scale("sdpa") * std::log(8192.0 / 6000.0),
                         std::log(2.0)),
              1e-12);
  EXPECT_EQ(s.constraints.head_group_multiple, 4u);  // from the catalogue
  EXPECT_EQ(snap->select(query_for(db.a), attention(1, 8192, 32, 8, 128)).matched_heads, 32u);
}

// 24 query heads over 8 KV heads: 3 a KV head, which the tuned split's 4-head workgroups would
// straddle (its stored constraints predate head_group_multiple: the catalogue says so), so the
// nearest legal one answers, the fused kernel at L=512; 7 a KV head and no legal tuned variant:
// the built-ins, whose head groups of one fit any.
TEST_F(SelectSdpa, OtherHeadCountsNeverGetAHeadGroupTheyCannotRun) {
  Selection s = snap->select(query_for(db.a), attention(1, 8192, 24, 8, 128));
  ASSERT_TRUE(s.ok()) << s.error;
  EXPECT_EQ(s.shape_match, ShapeMatch::nearest);
  EXPECT_EQ(s.variant_key, "sdpa_fused[vec=4,keys=2,wg=64,qpg=1]");
  EXPECT_EQ(s.matched_n, 512u);

  FakeDb only_split;
  const auto split = only_split.store.upsert_kernel(
      sdpa_kernel("sdpa_split[vec=4,keys=1,wg=128,slices=16,qpg=4]"));
  only_split.store.add_measurement(testing::ok_measurement(
      only_split.store.begin_run({}), only_split.store.upsert_device(only_split.a),
      only_split.store.upsert_problem(tuned(8192)), split, 5000));
  const auto split_snap = only_split.snapshot();
  s = split_snap->select(query_for(only_split.a), attention(1, 8192, 28, 4, 128));
  ASSERT_TRUE(s.ok()) << s.error;
  EXPECT_EQ(s.shape_match, ShapeMatch::builtin);
  EXPECT_EQ(s.variant_key, "sdpa_fused[vec=4,keys=1,wg=64,qpg=1]");
  EXPECT_FALSE(s.spirv.empty());  // shipped
}

// 32 / 16 heads (2 a KV head) is as far from 32 / 8 as from 32 / 32: the head counts whose
// nearest tuned shape is nearer answer, 32 / 32 at L=2048 where it tuned that very shape, 32 / 8
// at L=8192, which it tuned.
TEST_F(SelectSdpa, HeadCountsAsNearGoByTheirNearestShapes) {
  db::Problem mha = tuned(2048);
  mha.kv_heads = 32;
  const auto fused = db.store.upsert_kernel(sdpa_kernel("sdpa_fused[vec=4,keys=2,wg=64,qpg=1]"));
  db.store.add_measurement(testing::ok_measurement(db.store.begin_run({}),
                                                   db.store.upsert_device(db.a),
                                                   db.store.upsert_problem(mha), fused, 700));
  const auto both = db.snapshot();
  Selection s = both->select(query_for(db.a), attention(1, 2048, 32, 16, 128));
  ASSERT_TRUE(s.ok()) << s.error;
  EXPECT_EQ(s.matched_kv_heads, 32u);
  EXPECT_NEAR(s.shape_distance, std::log(2.0), 1e-12);
  s = both->select(query_for(db.a), attention(1, 8192, 32, 16, 128));
  ASSERT_TRUE(s.ok()) << s.error;
  EXPECT_EQ(s.matched_kv_heads, 8u);
  EXPECT_EQ(s.matched_n, 512u);  // 8192's split serves 4 heads a workgroup: the legal nearest
}

// Attention ranks over every tuned head count's shapes: 24 / 8 heads tuned at one prefill shape,
// where the split runs 1.5x behind the fused kernel, and 32 / 8 at two decode shapes, where the
// split runs 2x ahead. A 24 / 8 decode query, one shape too few to rank in its own group, ranks
// among 32 / 8's too, whose decode shapes lie nearer (heads' distance included), and takes the
// split as measured there.
TEST(SelectSdpaHeads, AttentionRanksOverEveryTunedHeadCount) {
  FakeDb db;
  const auto fused = db.store.upsert_kernel(sdpa_kernel("sdpa_fused[vec=4,keys=2,wg=64,qpg=1]"));
  const auto split = db.store.upsert_kernel(sdpa_kernel("sdpa_split[vec=4,keys=1,wg=128,slices=16,qpg=1]"));
  const auto device = db.store.upsert_device(db.a);
  const auto run = db.store.begin_run({});
  const auto p = db.store.upsert_problem({0, "sdpa", "f32", 128, 2048, 128, 0, 24, 8});
  db.store.add_measurement(testing::ok_measurement(run, device, p, fused, 1000));
  db.store.add_measurement(testing::ok_measurement(run, device, p, split, 1500));
  for (const uint32_t length : {2048u, 4096u}) {
    const auto d = db.store.upsert_problem(tuned(length));
    db.store.add_measurement(testing::ok_measurement(run, device, d, fused, 200));
    db.store.add_measurement(testing::ok_measurement(run, device, d, split, 100));
  }
  const auto snap = db.snapshot();
  const Selection s = snap->select(query_for(db.a), attention(1, 2048, 24, 8, 128));
  ASSERT_TRUE(s.ok()) << s.error;
  EXPECT_EQ(s.shape_match, ShapeMatch::ranked);
  EXPECT_EQ(s.family, "sdpa_split");
  EXPECT_EQ(s.matched_heads, 32u);
  EXPECT_EQ(s.matched_m, 1u);
  EXPECT_EQ(s.matched_n, 2048u);
  // M x heads = 24 rows sit at M = 0.75 of 32 heads; the head counts' distance beside it.
  const double heads = kOtherHeadsScale * std::hypot(std::log(32.0 / 24), std::log(4.0 / 3));
  EXPECT_NEAR(s.shape_distance, std::hypot(std::log(0.75), heads), 1e-12);
  // A prefill query ranks nearest its own head counts' shape, where the fused kernel won.
  const Selection prefill_pick = snap->select(query_for(db.a), attention(64, 2048, 24, 8, 128));
  ASSERT_TRUE(prefill_pick.ok()) << prefill_pick.error;
  EXPECT_EQ(prefill_pick.shape_match, ShapeMatch::ranked);
  EXPECT_EQ(prefill_pick.family, "sdpa_fused");
  EXPECT_EQ(prefill_pick.matched_heads, 24u);
}

TEST_F(SelectSdpa, WideHeadsUseTheBaseline) {
  Selection s = snap->select(query_for(db.a), attention(1, 512, 32, 8, 320));
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
  ProblemQuery bf16 = attention(1, 512, 32, 8, 128);
  bf16.dtype = "bf16";
  const Selection s = snap->select(query_for(db.a), bf16);
  EXPECT_EQ(s.status, Status::invalid_query);
  EXPECT_EQ(s.error, "unknown dtype; expected \"f32\" or \"f16\"");
}

ProblemQuery half(ProblemQuery q) {
  q.dtype = "f16";
  return q;
}

// f16 sdpa (q, KV cache and out in fp16): tuned f16 buckets answer f16 queries, nearest by L
// too, and never with the f32 winners (nor the reverse); untuned head counts get the f16
// built-ins with their own shipped SPIR-V; the dispatch plan sizes the fp16 tensors in 2-byte
// elements, keeps the fp32 workspace, and names storageBuffer16BitAccess, which an engine must
// enable (a device without it cannot run any f16 variant: it must not ask for f16).
TEST(SelectSdpaF16, F16QueriesGetF16Variants) {
  FakeDb db;
  const auto fused = db.store.upsert_kernel(sdpa_kernel("sdpa_fused[vec=4,keys=2,wg=64,qpg=1]"));
  const auto split16 = db.store.upsert_kernel(sdpa_kernel("sdpa_split_f16[vec=4,keys=1,wg=128,slices=16,qpg=4]"));
  const auto device = db.store.upsert_device(db.a);
  const auto run = db.store.begin_run({});
  db::Problem p16 = tuned(2048);
  p16.dtype = "f16";
  db.store.add_measurement(
      testing::ok_measurement(run, device, db.store.upsert_problem(tuned(2048)), fused, 3000));
  db.store.add_measurement(
      testing::ok_measurement(run, device, db.store.upsert_problem(p16), split16, 2000));
  const auto snap = db.snapshot();

  Selection s = snap->select(query_for(db.a), half(attention(1, 2048, 32, 8, 128)));
  ASSERT_TRUE(s.ok()) << s.error;
  EXPECT_EQ(s.shape_match, ShapeMatch::exact);
  EXPECT_EQ(s.variant_key, "sdpa_split_f16[vec=4,keys=1,wg=128,slices=16,qpg=4]");
  s = snap->select(query_for(db.a), half(attention(1, 3000, 32, 8, 128)));
  ASSERT_TRUE(s.ok()) << s.error;
  EXPECT_NE(s.shape_match, ShapeMatch::exact);
  EXPECT_EQ(s.family, "sdpa_split_f16");
  EXPECT_EQ(s.matched_n, 2048u);
  s = snap->select(query_for(db.a), attention(1, 3000, 32, 8, 128));
  EXPECT_EQ(s.family, "sdpa_fused");  // the f32 query keeps the f32 winner

  // Untuned head counts whose head group (3 a KV head) the tuned f16 split cannot serve: the
  // f16 built-ins, with SPIR-V of their own.
  const Selection b16 = snap->select(query_for(db.a), half(attention(1, 512, 24, 8, 128)));
  ASSERT_TRUE(b16.ok()) << b16.error;
  EXPECT_EQ(b16.shape_match, ShapeMatch::builtin);
  EXPECT_EQ(b16.variant_key, "sdpa_fused_f16[vec=4,keys=1,wg=64,qpg=1]");
  const Selection b32 = snap->select(query_for(db.a), attention(1, 512, 24, 8, 128));
  ASSERT_FALSE(b16.spirv.empty());
  EXPECT_NE(std::vector<uint8_t>(b16.spirv.begin(), b16.spirv.end()),
            std::vector<uint8_t>(b32.spirv.begin(), b32.spirv.end()));
  Selection wide;
  select_builtin(half(attention(1, 512, 32, 8, 320)), wide);
  EXPECT_EQ(wide.variant_key, "sdpa_naive_f16[wg=64]");
  Selection odd;
  select_builtin(half(attention(1, 512, 32, 8, 42)), odd);
  EXPECT_EQ(odd.variant_key, "sdpa_fused_f16[vec=1,keys=1,wg=64,qpg=1]");

  // The dispatch contract: q, caches and out in fp16; an f32 variant for it is refused.
  const ProblemQuery q = half(attention(2, 100, 8, 2, 64));
  const Selection small = snap->select(query_for(db.a), q);  // 8 / 2 heads: the 32 / 8 split's
  ASSERT_TRUE(small.ok()) << small.error;
  EXPECT_EQ(small.family, "sdpa_split_f16");
  const DispatchPlan plan = plan_dispatch(small, q, {65535, 65535, 65535});
  ASSERT_TRUE(plan.ok()) << plan.error;
  EXPECT_EQ(plan.bindings[0].bytes, 2u * 8 * 64 * 2);    // q
  EXPECT_EQ(plan.bindings[1].bytes, 100u * 2 * 64 * 2);  // K cache
  EXPECT_EQ(plan.bindings[2].bytes, 100u * 2 * 64 * 2);  // V cache
  EXPECT_EQ(plan.bindings[3].bytes, 2u * 8 * 64 * 2);    // out
  EXPECT_EQ(plan.required_features, std::vector<std::string>{"storageBuffer16BitAccess"});
  const DispatchPlan wrong = plan_dispatch(b32, q, {65535, 65535, 65535});
  EXPECT_EQ(wrong.status, Status::invalid_query);
  EXPECT_NE(wrong.error.find("computes f32; the problem is f16"), std::string::npos)
      << wrong.error;

  // And through the C API.
  vktune_problem_query c{"sdpa", "f16", 1, 2048, 128, 0, 32, 8};
  vktune_device_query d{};
  vktune_selection cs{};
  ASSERT_EQ(vktune_select(nullptr, &d, &c, &cs), VKTUNE_OK) << cs.error;
  EXPECT_STREQ(cs.family, "sdpa_fused_f16");
}

// A snapshot of `db` holding these f16 winners, each the only variant measured on its problem.
struct Winner {
  std::string key;
  db::Problem problem;
  double ns;
};
std::shared_ptr<const Snapshot> f16_winners(FakeDb& db, std::initializer_list<Winner> winners) {
  const auto device = db.store.upsert_device(db.a);
  const auto run = db.store.begin_run({});
  for (Winner w : winners) {
    w.problem.dtype = "f16";
    db.store.add_measurement(
        testing::ok_measurement(run, device, db.store.upsert_problem(w.problem),
                                db.store.upsert_kernel(sdpa_kernel(w.key)), w.ns));
  }
  return db.snapshot();
}

// The snapshot's answer to `q` on `device`, checked ok and taken by the dispatch plan: the
// runtime never answers what its plan refuses.
Selection dispatchable(const Snapshot& snap, const db::DeviceRecord& device,
                       const ProblemQuery& q) {
  const Selection s = snap.select(query_for(device), q);
  EXPECT_TRUE(s.ok()) << s.error;
  const DispatchPlan plan = plan_dispatch(s, q, {65535, 65535, 65535});
  EXPECT_TRUE(plan.ok()) << s.variant_key << ": " << plan.error;
  return s;
}

// The decode kernel's blocks of `rows` query rows and its lanes' share of the head dim: a 32 / 8
// winner (rows=4 for its 4 query rows a KV head, lanes=16 for D 128) never answers one query
// row a KV head (32 / 32), whose blocks it would pad by 3 rows of 4, nor D 64, half of what its
// lanes load (its stored constraints predate query_rows_min and k_min: the catalogue says so).
// The 32 / 32 winner answers there, the built-ins where nothing tuned fits, and the dispatch
// plan takes every answer.
TEST(SelectSdpaDecode, NoAnswerIdlesHalfOfTheDecodeKernel) {
  const std::string rows4 =
      "sdpa_decode_f16[lanes=16,chunks=1,keys=4,ahead=1,wg=256,rows=4,splits=16,reduce=halving]";
  const std::string rows1 =
      "sdpa_decode_f16[lanes=16,chunks=1,keys=4,ahead=1,wg=256,rows=1,splits=8,reduce=butterfly]";
  db::Problem mha = tuned(2048);
  mha.kv_heads = 32;
  FakeDb db;
  const auto snap = f16_winners(db, {{rows4, tuned(8192), 15000}, {rows1, mha, 9000}});
  const auto answer = [&](const ProblemQuery& q) { return dispatchable(*snap, db.a, q); };

  const Selection tuned_here = answer(half(attention(1, 8192, 32, 8, 128)));
  EXPECT_EQ(tuned_here.variant_key, rows4);
  EXPECT_EQ(tuned_here.constraints.query_rows_min, 3u);  // from the catalogue
  EXPECT_EQ(tuned_here.constraints.k_min, 65u);
  EXPECT_EQ(answer(half(attention(2, 8192, 32, 8, 128))).variant_key, rows4);
  // One query row a KV head, at the 32 / 8 winner's very L: the 32 / 32 winner.
  EXPECT_EQ(answer(half(attention(1, 8192, 32, 32, 128))).variant_key, rows1);
  EXPECT_EQ(answer(half(attention(1, 8192, 16, 16, 128))).variant_key, rows1);
  // D 64: neither, so the built-ins.
  EXPECT_EQ(answer(half(attention(1, 8192, 32, 8, 64))).shape_match, ShapeMatch::builtin);
}

// The flash kernel split over the cache: a split winner tuned at L 2048 never answers a context
// too short to give each of its splits two blocks (`n_min`), a prompt whose tiles fill the GPU
// without the split (`split_tile_rows`), nor head groups wider than its tile
// (`head_group_max`); its stored constraints predate them, the catalogue says so. The unsplit
// winner answers there, and the dispatch plan takes every answer.
TEST(SelectSdpaFlash, NoAnswerSplitsWhereTheSplitCannotPay) {
  const std::string split = "sdpa_flash_khr_f16[hd=128,br=32,bc=32,stages=2,splits=4,dsplit=2]";
  const std::string whole = "sdpa_flash_khr_f16[hd=128,br=128,bc=32,stages=3,splits=1,dsplit=1]";
  db::Problem short_prompt = tuned(2048), long_prompt = tuned(4096);
  short_prompt.m = 64;
  long_prompt.m = 512;
  FakeDb db;
  const auto snap = f16_winners(db, {{split, short_prompt, 40000}, {whole, long_prompt, 220000}});
  const auto answer = [&](const ProblemQuery& q) {
    return dispatchable(*snap, db.a, q).variant_key;
  };

  EXPECT_EQ(answer(half(attention(64, 2048, 32, 8, 128))), split);
  EXPECT_EQ(answer(half(attention(64, 1500, 32, 8, 128))), split);
  EXPECT_EQ(answer(half(attention(64, 128, 32, 8, 128))), whole);     // 4 blocks, 4 splits
  EXPECT_EQ(answer(half(attention(4096, 4096, 32, 8, 128))), whole);  // 4,096 tiles of 8 tokens
  EXPECT_EQ(answer(half(attention(64, 2048, 64, 1, 128))), whole);    // 64 heads a KV head
}

// The one conversion of a query to the catalogue's problem carries the head counts.
TEST(SdpaQueryProblem, ToProblemCarriesTheHeads) {
  const std::optional<kernels::Problem> p = kernels::problem_of(attention(2, 700, 32, 8, 128));
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->op, kernels::Op("sdpa"));
  EXPECT_EQ(p->heads, 32u);
  EXPECT_EQ(p->kv_heads, 8u);
  EXPECT_EQ(kernels::validate(*p), "");
  EXPECT_EQ(kernels::describe(*p), "sdpa M=2 L=700 Hq=32 Hkv=8 D=128");
}

}  // namespace
}  // namespace vktune::runtime
