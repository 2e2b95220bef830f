// Snapshot::select for untuned shapes: the nearest problems' variants ranked, exact hits kept,
// and a database of winners alone answered by the nearest winner, flagged as such.
#include <gtest/gtest.h>

#include <cmath>

#include "runtime/dispatch.h"
#include "runtime/rank.h"
#include "runtime/snapshot.h"
#include "tests/runtime/fake_catalog.h"

namespace vktune::runtime {
namespace {

using testing::q4;

TEST(SelectRanked, AnUntunedShapeGetsTheVariantGoodOnBothNeighbours) {
  testing::RankedDb db;
  const auto snap = db.snapshot();  // the Selection's views point into it
  const Selection s = snap->select(testing::query_for(db.a), q4(8, 4096, 4096));
  ASSERT_TRUE(s.ok()) << s.error;
  EXPECT_EQ(s.shape_match, ShapeMatch::ranked);
  EXPECT_EQ(s.device_match, DeviceMatch::exact);
  EXPECT_EQ(s.variant_key, "q4gsw_tiled[layout=raw,tm=8,tn=4,wg=64,bk=0]");
  // Measured on the nearer of the two (the tie goes to the smaller M): 120 ns at M=4.
  EXPECT_EQ(s.matched_m, 4u);
  EXPECT_EQ(s.median_ns, 120.0);
  EXPECT_NEAR(s.shape_distance, std::log(2.0), 1e-12);
}

// Device A with problems M=4 and M=16 of 4096 x 4096, three tiled kernels and two runs; the
// first run is the wider one in each test.
struct TwoRuns {
  db::Store store = db::Store::open_memory();
  db::DeviceRecord a = testing::FakeDb::device(0x10de, 0x2684, 100, "discrete", "A");
  int64_t device = store.upsert_device(a);
  int64_t ta = kernel("q4gsw_tiled[layout=raw,tm=4,tn=4,wg=64,bk=0]");
  int64_t tb = kernel("q4gsw_tiled[layout=raw,tm=8,tn=4,wg=64,bk=0]");
  int64_t tc = kernel("q4gsw_tiled[layout=raw,tm=8,tn=8,wg=64,bk=0]");
  int64_t p4 = store.upsert_problem(testing::fake_problem(4, 4096, 4096));
  int64_t p16 = store.upsert_problem(testing::fake_problem(16, 4096, 4096));
  int64_t first = store.begin_run({});
  int64_t second = store.begin_run({});

  int64_t kernel(const char* key) { return store.upsert_kernel(testing::fake_kernel(key)); }
  void add(int64_t run, int64_t problem, int64_t kernel, double ns) {
    store.add_measurement(testing::ok_measurement(run, device, problem, kernel, ns));
  }
  // What both tests start from: the first run timed tiled-a (300) ahead of tiled-b (330) on
  // both problems.
  void add_first_run() {
    for (const int64_t problem : {p4, p16}) {
      add(first, problem, ta, 300.0);
      add(first, problem, tb, 330.0);
    }
  }
};

// tiled-b's shader source was edited between the runs: M=4 measured its old version, M=16 its
// new one (another kernel record, same key), each ahead of tiled-a. Read as two kernels, each
// version would be absent, hence slow, on the other neighbour, and tiled-a, second on both,
// would be picked for M=8; read as one variant, tiled-b is, answered with the version measured
// on the nearer neighbour (M=4: the tie goes to the smaller M).
TEST(SelectRanked, AVariantsVersionsRankAsOneVariant) {
  TwoRuns runs;
  db::KernelRecord edited = testing::fake_kernel("q4gsw_tiled[layout=raw,tm=8,tn=4,wg=64,bk=0]");
  edited.source_hash = "hash-edited";
  const int64_t tb_new = runs.store.upsert_kernel(edited);
  runs.add(runs.first, runs.p4, runs.tb, 300.0);
  runs.add(runs.first, runs.p4, runs.ta, 330.0);
  runs.add(runs.second, runs.p16, tb_new, 300.0);
  runs.add(runs.second, runs.p16, runs.ta, 330.0);
  const auto snap = testing::snapshot_of(runs.store, "catalog");
  ASSERT_TRUE(snap);
  const Selection s = snap->select(testing::query_for(runs.a), q4(8, 4096, 4096));
  EXPECT_EQ(s.shape_match, ShapeMatch::ranked);
  EXPECT_EQ(s.variant_key, "q4gsw_tiled[layout=raw,tm=8,tn=4,wg=64,bk=0]");
  EXPECT_EQ(s.matched_m, 4u);
}

// M=4 and M=16 both measured tiled-a (300) ahead of tiled-b (330) in one slow run; a second,
// faster run timed tiled-b alone at M=4 (100), which makes it M=4's winner. Ratios mixing the
// runs would rank tiled-b 1 and tiled-a 3 at M=4 and pick tiled-b for M=8; a kernel the widest
// run measured ranks by its time there, so tiled-a leads on both neighbours, and is picked.
TEST(SelectRanked, RatiosAreReadWithinOneRun) {
  TwoRuns runs;
  runs.add_first_run();                            // the slow run
  runs.add(runs.second, runs.p4, runs.tb, 100.0);  // the fast one
  const auto snap = testing::snapshot_of(runs.store, "catalog");
  ASSERT_TRUE(snap);
  EXPECT_EQ(snap->select(testing::query_for(runs.a), q4(4, 4096, 4096)).variant_key,
            "q4gsw_tiled[layout=raw,tm=8,tn=4,wg=64,bk=0]");  // exact: the winner stays
  const Selection s = snap->select(testing::query_for(runs.a), q4(8, 4096, 4096));
  EXPECT_EQ(s.shape_match, ShapeMatch::ranked);
  EXPECT_EQ(s.variant_key, "q4gsw_tiled[layout=raw,tm=4,tn=4,wg=64,bk=0]");
  EXPECT_EQ(s.median_ns, 300.0);
}

// A family re-tuned in a run of its own: the widest run at M=4 and M=16 never measured the
// coopmat-like kernel, which a second run timed alone on both (and fastest by far). Read from
// the widest run alone it would be absent from both lists, i.e. ranked as slow; it ranks by
// its time in the run that measured it, and is picked for M=8.
TEST(SelectRanked, AKernelOnlyAnotherRunMeasuredStillRanks) {
  TwoRuns runs;
  runs.add_first_run();  // the widest run
  runs.add(runs.second, runs.p4, runs.tc, 100.0);
  runs.add(runs.second, runs.p16, runs.tc, 100.0);
  const db::Catalog catalog = runs.store.catalog();
  EXPECT_EQ(catalog.ranked.size(), 6u);  // every kernel of both problems
  const auto snap = testing::snapshot_of(runs.store, "catalog");
  ASSERT_TRUE(snap);
  const Selection s = snap->select(testing::query_for(runs.a), q4(8, 4096, 4096));
  EXPECT_EQ(s.shape_match, ShapeMatch::ranked);
  EXPECT_EQ(s.variant_key, "q4gsw_tiled[layout=raw,tm=8,tn=8,wg=64,bk=0]");
  EXPECT_EQ(s.median_ns, 100.0);
}

TEST(SelectRanked, ExactStaysExact) {
  testing::RankedDb db;
  const auto snap = db.snapshot();
  const Selection s = snap->select(testing::query_for(db.a), q4(4, 4096, 4096));
  EXPECT_EQ(s.shape_match, ShapeMatch::exact);
  EXPECT_EQ(s.variant_key, "q4gsw_tiled[layout=raw,tm=4,tn=4,wg=64,bk=0]");
}

TEST(SelectRanked, WinnersAloneAnswerWithTheNearestWinner) {
  testing::RankedDb db;
  db::Catalog catalog = db.store.catalog();
  catalog.ranked = catalog.winners;  // what a document without the ranked section gives
  std::string error;
  const auto snap = Snapshot::from_catalog(catalog, &error);
  ASSERT_TRUE(snap) << error;
  const Selection s = snap->select(testing::query_for(db.a), q4(8, 4096, 4096));
  EXPECT_EQ(s.shape_match, ShapeMatch::nearest);
  EXPECT_EQ(s.variant_key, "q4gsw_tiled[layout=raw,tm=4,tn=4,wg=64,bk=0]");
}

// The ranking reads each variant's output tile from this runtime's catalogue by its knobs: a
// 128-row tile best at M = 128 and 256 computes 256 rows at M = 160, and the 64-row tile 1.2x
// behind it on both computes 192 there, so the 64-row one is picked.
TEST(SelectRanked, AVariantsTileIsReadFromTheCatalogueByItsKnobs) {
  db::Store store = db::Store::open_memory();
  const db::DeviceRecord a = testing::FakeDb::device(0x10de, 0x2684, 100, "discrete", "A");
  const int64_t device = store.upsert_device(a);
  auto tile = [&](uint32_t bm) {
    const std::string knobs = "bm=" + std::to_string(bm) + ",bn=128,bk=32,sg=8,buf=2,wpf=0";
    db::KernelRecord k = testing::fake_kernel("q4gsw_coopmat_khr_packed[" + knobs + "]");
    k.knobs_json = R"({"bm":)" + std::to_string(bm) + R"(,"bn":128,"bk":32,"sg":8,"buf":2,"wpf":0})";
    return store.upsert_kernel(k);
  };
  const int64_t rows128 = tile(128), rows64 = tile(64);
  const int64_t run = store.begin_run({});
  for (const uint32_t m : {128u, 256u}) {
    const int64_t problem = store.upsert_problem(testing::fake_problem(m, 4096, 4096));
    store.add_measurement(testing::ok_measurement(run, device, problem, rows128, 100.0 * m));
    store.add_measurement(testing::ok_measurement(run, device, problem, rows64, 120.0 * m));
  }
  const auto snap = testing::snapshot_of(store, "catalog");
  ASSERT_TRUE(snap);
  EXPECT_EQ(snap->select(testing::query_for(a), q4(160, 4096, 4096)).variant_key,
            "q4gsw_coopmat_khr_packed[bm=64,bn=128,bk=32,sg=8,buf=2,wpf=0]");
  EXPECT_EQ(snap->select(testing::query_for(a), q4(384, 4096, 4096)).variant_key,
            "q4gsw_coopmat_khr_packed[bm=128,bn=128,bk=32,sg=8,buf=2,wpf=0]");
}

// The device's compute units come from its stored properties; without them (databases tuned
// before they were recorded) the ranking leaves the grid's fill out.
TEST(SelectRanked, AGridsFillIsCountedWithTheStoredComputeUnits) {
  for (const bool units : {false, true}) {
    db::Store store = db::Store::open_memory();
    db::DeviceRecord a = testing::FakeDb::device(0x10de, 0x2684, 100, "discrete", "A");
    if (units) a.properties_json = R"({"limits":{"compute_units":4}})";
    const int64_t device = store.upsert_device(a);
    auto tile = [&](uint32_t bm) {
      const std::string knobs = "bm=" + std::to_string(bm) + ",bn=128,bk=32,sg=8,buf=2,wpf=0";
      db::KernelRecord k = testing::fake_kernel("q4gsw_coopmat_khr_packed[" + knobs + "]");
      k.knobs_json =
          R"({"bm":)" + std::to_string(bm) + R"(,"bn":128,"bk":32,"sg":8,"buf":2,"wpf":0})";
      k.workgroup_size = 256;  // one resident a compute unit: 4 slots a wave
      return store.upsert_kernel(k);
    };
    const int64_t rows64 = tile(64), rows32 = tile(32);
    const int64_t run = store.begin_run({});
    // At N = 512 and 1024 both fill whole waves of 4; the 64-row tile runs faster.
    for (const uint32_t n : {512u, 1024u}) {
      const int64_t problem = store.upsert_problem(testing::fake_problem(64, n, 4096));
      store.add_measurement(testing::ok_measurement(run, device, problem, rows64, 100.0 * n));
      store.add_measurement(testing::ok_measurement(run, device, problem, rows32, 120.0 * n));
    }
    const auto snap = testing::snapshot_of(store, "catalog");
    ASSERT_TRUE(snap);
    // N = 640: 5 workgroups of the 64-row tile fill 5 of 8 slots, 10 of the 32-row one 10 of
    // 12; ln 1.6 > ln 1.2 + ln 1.2.
    EXPECT_EQ(snap->select(testing::query_for(a), q4(64, 640, 4096)).variant_key,
              std::string("q4gsw_coopmat_khr_packed[bm=") + (units ? "32" : "64") +
                  ",bn=128,bk=32,sg=8,buf=2,wpf=0]")
        << (units ? "with" : "without") << " compute units";
  }
}

// A split that ran fastest where its tiles left the GPU room is not the answer where they fill
// it (kernels::OutputTile::split_allowed): the tuner never measures such a split and the dispatch
// plan refuses it. Neither the ranking nor, from winners alone, the nearest winner names it.
TEST(SelectRanked, ASplitIsNotTheAnswerWhereItsTilesFillTheGpu) {
  db::Store store = db::Store::open_memory();
  const db::DeviceRecord a = testing::FakeDb::device(0x10de, 0x2684, 100, "discrete", "A");
  const int64_t device = store.upsert_device(a);
  auto tile = [&](std::string_view family, std::string_view split) {
    db::KernelRecord k =
        testing::fake_kernel(std::string(family) + "[bm=128,bn=128,bk=32,sg=8,buf=2," +
                             (split.empty() ? "" : "splitk=2,") + "wpf=0]");
    k.knobs_json =
        R"({"bm":128,"bn":128,"bk":32,"sg":8,"buf":2,)" + std::string(split) + R"("wpf":0})";
    return store.upsert_kernel(k);
  };
  const int64_t split = tile("q4gsw_coopmat_splitk_khr_packed", R"("splitk":2,)");
  const int64_t whole = tile("q4gsw_coopmat_khr_packed", "");
  const int64_t run = store.begin_run({});
  for (const uint32_t m : {256u, 512u}) {  // 64 and 128 tiles of 128 x 128: the split may
    const int64_t problem = store.upsert_problem(testing::fake_problem(m, 4096, 4096));
    store.add_measurement(testing::ok_measurement(run, device, problem, split, 100.0 * m));
    store.add_measurement(testing::ok_measurement(run, device, problem, whole, 120.0 * m));
  }
  const char* kSplit =
      "q4gsw_coopmat_splitk_khr_packed[bm=128,bn=128,bk=32,sg=8,buf=2,splitk=2,wpf=0]";
  const char* kWhole = "q4gsw_coopmat_khr_packed[bm=128,bn=128,bk=32,sg=8,buf=2,wpf=0]";
  db::Catalog catalog = store.catalog();
  for (const bool ranked : {true, false}) {
    if (!ranked) catalog.ranked = catalog.winners;  // winners alone: the nearest winner answers
    std::string error;
    const auto snap = Snapshot::from_catalog(catalog, &error);
    ASSERT_TRUE(snap) << error;
    // M = 384: 48 tiles, the split is legal and best on both neighbours.
    const Selection legal = snap->select(testing::query_for(a), q4(384, 4096, 4096));
    EXPECT_EQ(legal.variant_key, kSplit);
    // M = 4096: 1,024 tiles, past kernels::kMaxSplitTiles.
    const Selection past = snap->select(testing::query_for(a), q4(4096, 4096, 4096));
    ASSERT_TRUE(past.ok()) << past.error;
    EXPECT_NE(past.variant_key, kSplit) << (ranked ? "ranked" : "nearest");
    // Ranked, the whole tile measured beside it; from winners alone (the split won both), no
    // tuned winner is legal and the built-in routing answers.
    EXPECT_EQ(past.shape_match, ranked ? ShapeMatch::ranked : ShapeMatch::builtin);
    if (ranked) {
      EXPECT_EQ(past.variant_key, kWhole);
    }
  }
}

// Group size 32 tuned 4096 x 4096 at M 4 and 16, where tiled-b wins; group size 128 tuned only
// 512 x 512, where tiled-a does. A gs=128 query of M=8 4096 x 4096 is ranked on the gs=32 shapes
// its own group size lacks (0.35 further away for the group size), not on the far 512 x 512.
TEST(SelectRanked, AShapeTunedAtAnotherGroupSizeAloneStandsInForIt) {
  db::Store store = db::Store::open_memory();
  const db::DeviceRecord a = testing::FakeDb::device(0x10de, 0x2684, 100, "discrete", "A");
  const int64_t device = store.upsert_device(a);
  const int64_t ta = store.upsert_kernel(testing::fake_kernel("q4gsw_tiled[layout=raw,tm=4,tn=4,wg=64,bk=0]"));
  const int64_t tb = store.upsert_kernel(testing::fake_kernel("q4gsw_tiled[layout=raw,tm=8,tn=4,wg=64,bk=0]"));
  const int64_t run = store.begin_run({});
  for (const uint32_t m : {4u, 16u}) {
    const int64_t near = store.upsert_problem(testing::fake_problem(m, 4096, 4096, 32));
    store.add_measurement(testing::ok_measurement(run, device, near, tb, 100.0));
    store.add_measurement(testing::ok_measurement(run, device, near, ta, 300.0));
    const int64_t far = store.upsert_problem(testing::fake_problem(m, 512, 512, 128));
    store.add_measurement(testing::ok_measurement(run, device, far, ta, 100.0));
    store.add_measurement(testing::ok_measurement(run, device, far, tb, 300.0));
  }
  const auto snap = testing::snapshot_of(store, "catalog");
  const Selection s = snap->select(testing::query_for(a), q4(8, 4096, 4096, 128));
  ASSERT_TRUE(s.ok()) << s.error;
  EXPECT_EQ(s.shape_match, ShapeMatch::ranked);
  EXPECT_EQ(s.variant_key, "q4gsw_tiled[layout=raw,tm=8,tn=4,wg=64,bk=0]");
  EXPECT_EQ(s.matched_group_size, 32u);
  EXPECT_NEAR(s.shape_distance, std::hypot(std::log(2.0), kOtherGroupSizeScale * std::log(4.0)), 1e-9);
}

// The tensor-core tiles' shape rules: q4gsw_coopmat2 finds a block's scale by a shift (a
// power-of-two group size), and a split of K keeps two k-steps a slice. Winners stored before
// the rules were constraints (tuned at K 512 and 1024, gs 32 and 128) get them from the
// catalogue: neither answers a group size of 96 nor, split, K 416; the ranking then picks the
// next variant measured beside them, and the dispatch plan takes every answer.
TEST(SelectRanked, NoAnswerBreaksATensorCoreTilesShapeRules) {
  db::Store store = db::Store::open_memory();
  const db::DeviceRecord a = testing::FakeDb::device(0x10de, 0x2684, 100, "discrete", "A");
  const int64_t device = store.upsert_device(a);
  const std::string old_bounds = R"({"k_multiple":32,"gs_multiple":32,"m_min":1,"m_max":0})";
  auto coopmat2 = [&](uint32_t splitk) {
    const std::string knobs = "wg=256,bm=64,bn=64,bk=64,splitk=" + std::to_string(splitk);
    db::KernelRecord k = testing::fake_kernel("q4gsw_coopmat2[" + knobs + "]", old_bounds);
    k.knobs_json = R"({"wg":256,"bm":64,"bn":64,"bk":64,"splitk":)" + std::to_string(splitk) + "}";
    k.workgroup_size = 256;
    return store.upsert_kernel(k);
  };
  const int64_t whole = coopmat2(1), split = coopmat2(4);
  const std::string tiled_key = "q4gsw_tiled[layout=raw,tm=8,tn=4,wg=64,bk=0]";
  db::KernelRecord tiled_record = testing::fake_kernel(tiled_key, old_bounds);
  tiled_record.knobs_json = R"({"layout":"raw","tm":8,"tn":4,"wg":64,"bk":0})";
  tiled_record.workgroup_size = 64;
  const int64_t tiled = store.upsert_kernel(tiled_record);
  const int64_t run = store.begin_run({});
  for (const uint32_t gs : {32u, 128u}) {
    for (const uint32_t k : {512u, 1024u}) {  // two neighbours to rank over
      const int64_t problem = store.upsert_problem(testing::fake_problem(128, 4096, k, gs));
      store.add_measurement(testing::ok_measurement(run, device, problem, split, 100));
      store.add_measurement(testing::ok_measurement(run, device, problem, whole, 110));
      store.add_measurement(testing::ok_measurement(run, device, problem, tiled, 300));
    }
  }
  const auto snap = testing::snapshot_of(store, "catalog");
  ASSERT_TRUE(snap);
  const auto answer = [&](const ProblemQuery& q) {
    const Selection s = snap->select(testing::query_for(a), q);
    EXPECT_TRUE(s.ok()) << s.error;
    const DispatchPlan plan = plan_dispatch(s, q, {65535, 65535, 65535});
    EXPECT_TRUE(plan.ok()) << s.variant_key << ": " << plan.error;
    return std::string(s.variant_key);
  };
  const std::string key = "q4gsw_coopmat2[wg=256,bm=64,bn=64,bk=64,splitk=";
  EXPECT_EQ(answer(q4(128, 4096, 512, 64)), key + "4]");
  EXPECT_EQ(answer(q4(128, 4096, 480, 32)), key + "4]");  // 8 k-steps, the last partial
  EXPECT_EQ(answer(q4(128, 4096, 416, 32)), key + "1]");  // 7 k-steps for 4 slices
  EXPECT_EQ(answer(q4(128, 4096, 576, 96)), tiled_key);
}

}  // namespace
}  // namespace vktune::runtime
