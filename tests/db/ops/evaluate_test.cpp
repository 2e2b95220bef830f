// Leave-one-problem-out evaluation on small databases whose answers are known by hand.
#include "db/ops/evaluate.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "db/error.h"
#include "tests/db/fixtures.h"

namespace vktune::db::ops {
namespace {

using namespace vktune::testing;

constexpr const char* kGemvKey = "q4gsw_gemv[layout=raw,wg=128,rows=4,load=u32x4,reduce=subgroup]";
constexpr const char* kTiledKey = "q4gsw_tiled[layout=raw,tm=4,tn=4,wg=64,bk=0]";
constexpr const char* kOtherKey = "q4gsw_tiled[layout=packed,tm=8,tn=4,wg=128,bk=32]";

// Two neighbouring gs=32 problems that disagree on the best variant, so each one hidden is
// answered by the other's order; and a gs=128 problem alone in its group, answered from the
// gs=32 group with a variant it never measured.
struct EvalDb {
  db::Store store = db::Store::open_memory();
  int64_t device = 0, gemv = 0, tiled = 0, other = 0, run = 0;

  EvalDb() {
    device = store.upsert_device(fake_device());
    gemv = store.upsert_kernel(fake_kernel(kGemvKey));
    tiled = store.upsert_kernel(fake_kernel(kTiledKey));
    other = store.upsert_kernel(fake_kernel(kOtherKey));
    run = store.begin_run({});
  }
  void add(int64_t problem, int64_t kernel, double ns) {
    store.add_measurement(ok_measurement(run, device, problem, kernel, ns));
  }
  // p1 (N=1024: gemv 100) and p2 (N=2048: tiled 100, gemv p2_gemv_ns): hidden, p1 is answered
  // by p2's winner, tiled. Returns p1.
  int64_t two_problems(double p2_gemv_ns) {
    const auto p1 = store.upsert_problem(fake_problem(1, 1024, 1024));
    const auto p2 = store.upsert_problem(fake_problem(1, 2048, 1024));
    add(p1, gemv, 100);
    add(p2, tiled, 100);
    add(p2, gemv, p2_gemv_ns);
    return p1;
  }
};

TEST(Evaluate, ReadsEachPickInTheHiddenProblemsOwnMeasurements) {
  EvalDb db;
  const auto p1 = db.store.upsert_problem(fake_problem(1, 1024, 1024));
  const auto p2 = db.store.upsert_problem(fake_problem(1, 2048, 1024));
  const auto lone = db.store.upsert_problem(fake_problem(1, 1024, 1024, 128));
  db.add(p1, db.gemv, 100);
  db.add(p1, db.tiled, 300);
  db.add(p2, db.tiled, 100);
  db.add(p2, db.gemv, 120);
  db.add(lone, db.other, 50);

  const Evaluation e = evaluate_leave_one_out(db.store);
  ASSERT_EQ(e.cases.size(), 3u);
  EXPECT_EQ(e.misses, 1u);
  // Worst first: the miss, then p1 (answered by p2's winner, tiled: 300 / 100), then p2
  // (answered by p1's winner, gemv: 120 / 100).
  EXPECT_EQ(e.cases[0].problem.group_size, 128u);
  EXPECT_FALSE(e.cases[0].regret.has_value());
  EXPECT_EQ(e.cases[0].miss, "never measured there");
  EXPECT_EQ(e.cases[0].shape_match, runtime::ShapeMatch::ranked);  // from the gs=32 group
  EXPECT_EQ(e.cases[0].best, kOtherKey);

  EXPECT_EQ(e.cases[1].problem.n, 1024u);
  EXPECT_EQ(e.cases[1].picked, kTiledKey);
  EXPECT_EQ(e.cases[1].best, kGemvKey);
  EXPECT_DOUBLE_EQ(*e.cases[1].regret, 2.0);
  EXPECT_EQ(e.cases[2].problem.n, 2048u);
  EXPECT_EQ(e.cases[2].picked, kGemvKey);
  EXPECT_DOUBLE_EQ(*e.cases[2].regret, 0.2);

  EXPECT_EQ(e.regret.count, 2u);
  EXPECT_DOUBLE_EQ(e.regret.median, 1.1);
  EXPECT_DOUBLE_EQ(e.regret.p90, 2.0);
  EXPECT_DOUBLE_EQ(e.regret.max, 2.0);
  EXPECT_EQ(e.regret.within_10pct, 0u);
  EXPECT_DOUBLE_EQ(e.regret.mean_log, (std::log(3.0) + std::log(1.2)) / 2);
  ASSERT_EQ(e.by_class.size(), 1u);  // the miss has no regret to summarise
  EXPECT_EQ(e.by_class.at("q4gsw").count, 2u);
  EXPECT_DOUBLE_EQ(e.by_class.at("q4gsw").mean_log, e.regret.mean_log);

  const auto j = nlohmann::json::parse(render_evaluation_json(e, 2));
  EXPECT_EQ(j["misses"], 1);
  EXPECT_EQ(j["regret"]["within_10pct"], 0);
  EXPECT_DOUBLE_EQ(j["regret"]["mean_log1p"].get<double>(), e.regret.mean_log);
  EXPECT_EQ(j["by_class"]["q4gsw"]["count"], 2);
  EXPECT_EQ(j["worst"].size(), 2u);
  EXPECT_EQ(j["worst"][1]["picked"], kTiledKey);
  EXPECT_TRUE(j["worst"][0]["regret"].is_null());
  const std::string text = render_evaluation_text(e, 3);
  EXPECT_NE(text.find("MISS, never measured there"), std::string::npos) << text;
  EXPECT_NE(text.find("median 110.0%"), std::string::npos) << text;
  EXPECT_NE(text.find("within 10% 0 of 2"), std::string::npos) << text;
}

TEST(Evaluate, APickWithAWrongResultThereIsAMiss) {
  EvalDb db;
  const int64_t p1 = db.two_problems(150);
  db::Measurement wrong = ok_measurement(db.run, db.device, p1, db.tiled, 90);
  wrong.status = db::Status::wrong_result;
  wrong.median_ns.reset();
  db.store.add_measurement(wrong);

  const Evaluation e = evaluate_leave_one_out(db.store);
  ASSERT_EQ(e.cases.size(), 2u);
  EXPECT_EQ(e.misses, 1u);
  EXPECT_EQ(e.cases[0].problem.n, 1024u);
  EXPECT_EQ(e.cases[0].picked, kTiledKey);
  EXPECT_EQ(e.cases[0].miss, "wrong result there");
}

// p1's best was timed in one run and the pick in a slower one, next to a variant barely faster
// than it: within the pick's own run it costs 1.07x (the regret), across runs 3x.
TEST(Evaluate, RegretComparesTimesOfTheSameRun) {
  EvalDb db;
  const int64_t p1 = db.two_problems(120);
  const int64_t slower = db.store.begin_run({});
  db.store.add_measurement(ok_measurement(slower, db.device, p1, db.tiled, 300));
  db.store.add_measurement(ok_measurement(slower, db.device, p1, db.other, 280));

  const Evaluation e = evaluate_leave_one_out(db.store);
  ASSERT_EQ(e.cases.size(), 2u);
  // Worst first: p2 (gemv, 120 / 100), then p1.
  EXPECT_EQ(e.cases[1].problem.n, 1024u);
  EXPECT_EQ(e.cases[1].picked, kTiledKey);
  EXPECT_DOUBLE_EQ(*e.cases[1].regret, 300.0 / 280.0 - 1);
  EXPECT_EQ(e.cases[1].best, kOtherKey);
  EXPECT_DOUBLE_EQ(e.cases[1].best_ns, 280.0);
  EXPECT_DOUBLE_EQ(*e.cases[1].picked_ns, 300.0);
  EXPECT_DOUBLE_EQ(*e.cases[1].regret_across_runs, 2.0);
  EXPECT_DOUBLE_EQ(*e.cases[0].regret, 0.2);
  EXPECT_DOUBLE_EQ(e.regret.max, 0.2);
  EXPECT_EQ(e.regret.within_10pct, 1u);  // 300 / 280
  EXPECT_DOUBLE_EQ(e.across_runs.max, 2.0);
  const auto j = nlohmann::json::parse(render_evaluation_json(e, 2));
  EXPECT_DOUBLE_EQ(j["regret_across_runs"]["max"].get<double>(), 2.0);
  EXPECT_DOUBLE_EQ(j["worst"][1]["regret_across_runs"].get<double>(), 2.0);
}

// Each time comes with the samples behind it, in the text and the JSON: a one-sample time (a
// halving run's first round) reads as what it is.
TEST(Evaluate, SaysHowManySamplesEachTimeHas) {
  EvalDb db;
  const int64_t p1 = db.two_problems(120);
  db::Measurement once = ok_measurement(db.run, db.device, p1, db.tiled, 300);
  once.n = 1;
  db.store.add_measurement(once);

  const Evaluation e = evaluate_leave_one_out(db.store);
  const auto c = std::find_if(e.cases.begin(), e.cases.end(),
                              [](const EvaluationCase& x) { return x.problem.n == 1024; });
  ASSERT_NE(c, e.cases.end());
  ASSERT_EQ(c->picked, kTiledKey);
  EXPECT_EQ(c->picked_samples, 1u);
  EXPECT_EQ(c->best_samples, 10u);  // gemv, ok_measurement's 10
  const std::string text = render_evaluation_text(e, 2);
  EXPECT_NE(text.find(std::string(kTiledKey) + "  (1 sample)"), std::string::npos) << text;
  EXPECT_NE(text.find(std::string(kGemvKey) + "  (10 samples)"), std::string::npos) << text;
  const auto j = nlohmann::json::parse(render_evaluation_json(e, 2));
  const auto& worst = j["worst"][0]["problem"]["n"] == 1024 ? j["worst"][0] : j["worst"][1];
  EXPECT_EQ(worst["picked_samples"], 1);
  EXPECT_EQ(worst["best_samples"], 10);
}

// Runs that measured as many variants tie; the latest by start time (not by id) is the one
// the regret is read in, as the ranking reads the latest run's times.
TEST(Evaluate, ATieBetweenRunsGoesToTheLatestStarted) {
  EvalDb db;
  const int64_t p1 = db.two_problems(120);  // hidden, p1 is answered with tiled
  const auto run_started = [&](const char* at) {
    db::RunRecord r;
    r.started_at = at;
    return db.store.begin_run(r);
  };
  // Created in the order oldest-but-one, newest, middle: neither the first nor the last id
  // is the latest started.
  const int64_t second = run_started("2026-01-02T00:00:00Z");
  const int64_t latest = run_started("2026-01-03T00:00:00Z");
  const int64_t first = run_started("2026-01-01T00:00:00Z");
  for (const auto& [run, tiled_ns] :
       {std::pair{second, 300.0}, std::pair{latest, 110.0}, std::pair{first, 150.0}}) {
    db.store.add_measurement(ok_measurement(run, db.device, p1, db.tiled, tiled_ns));
    db.store.add_measurement(ok_measurement(run, db.device, p1, db.other, 100));
  }

  const Evaluation e = evaluate_leave_one_out(db.store);
  const auto c = std::find_if(e.cases.begin(), e.cases.end(),
                              [](const EvaluationCase& x) { return x.problem.n == 1024; });
  ASSERT_NE(c, e.cases.end());
  EXPECT_EQ(c->picked, kTiledKey);
  EXPECT_DOUBLE_EQ(*c->regret, 110.0 / 100.0 - 1);
}

// M=8 hidden between M=4 and M=16, which disagree: ranked over both, the runtime picks the
// variant that is best at M=8 too; copying the nearest winner (M=4's) costs 2x.
TEST(Evaluate, RankedRuntimeAgainstWinnersOnly) {
  EvalDb db;
  const auto p4 = db.store.upsert_problem(fake_problem(4, 4096, 4096));
  const auto p8 = db.store.upsert_problem(fake_problem(8, 4096, 4096));
  const auto p16 = db.store.upsert_problem(fake_problem(16, 4096, 4096));
  db.add(p4, db.gemv, 100);
  db.add(p4, db.tiled, 120);
  db.add(p4, db.other, 400);
  db.add(p8, db.gemv, 200);
  db.add(p8, db.tiled, 100);
  db.add(p8, db.other, 150);
  db.add(p16, db.tiled, 100);
  db.add(p16, db.other, 150);
  db.add(p16, db.gemv, 300);
  const auto case_of = [](const Evaluation& e, uint32_t m) {
    for (const EvaluationCase& c : e.cases) {
      if (c.problem.m == m) return c;
    }
    ADD_FAILURE() << "no case for M=" << m;
    return EvaluationCase{};
  };
  const EvaluationCase ranked = case_of(evaluate_leave_one_out(db.store), 8);
  EXPECT_EQ(ranked.shape_match, runtime::ShapeMatch::ranked);
  EXPECT_EQ(ranked.picked, kTiledKey);
  EXPECT_DOUBLE_EQ(*ranked.regret, 0.0);
  const EvaluationCase copied =
      case_of(evaluate_leave_one_out(db.store, RuntimeInput::winners), 8);
  EXPECT_EQ(copied.shape_match, runtime::ShapeMatch::nearest);
  EXPECT_EQ(copied.picked, kGemvKey);
  EXPECT_DOUBLE_EQ(*copied.regret, 1.0);
}

// p1's shape tuned at gs=128 agrees with p1 (gemv), its gs=32 neighbour p2 does not (tiled):
// hiding p1 alone, the other group size's measurements answer it; hiding its shape, p2 does.
TEST(Evaluate, LeaveOneShapeOutHidesTheOtherGroupSizesToo) {
  EvalDb db;
  const auto p1 = db.two_problems(120);
  db.add(p1, db.tiled, 300);
  const auto twin = db.store.upsert_problem(fake_problem(1, 1024, 1024, 128));
  db.add(twin, db.gemv, 100);
  db.add(twin, db.tiled, 200);
  const auto p1_case = [](const Evaluation& e) {
    for (const EvaluationCase& c : e.cases) {
      if (c.problem.n == 1024 && c.problem.group_size == 32) return c;
    }
    throw std::runtime_error("no case for p1");
  };

  const Evaluation problem = evaluate_leave_one_out(db.store);
  EXPECT_EQ(problem.hide, Hide::problem);
  EXPECT_EQ(p1_case(problem).picked, kGemvKey);
  EXPECT_DOUBLE_EQ(*p1_case(problem).regret, 0.0);

  const Evaluation shape = evaluate_leave_one_out(db.store, RuntimeInput::ranked, Hide::shape);
  EXPECT_EQ(p1_case(shape).picked, kTiledKey);
  EXPECT_DOUBLE_EQ(*p1_case(shape).regret, 2.0);
  EXPECT_NE(render_evaluation_text(shape, 0).find("leave-one-shape-out"), std::string::npos);
  EXPECT_EQ(nlohmann::json::parse(render_evaluation_json(shape, 0))["hidden"], "shape");
}

TEST(Evaluate, OneProblemSaysWhyItCannot) {
  EvalDb db;
  const auto p1 = db.store.upsert_problem(fake_problem(1, 1024, 1024));
  db.add(p1, db.gemv, 100);
  try {
    evaluate_leave_one_out(db.store);
    FAIL() << "expected db::Error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("needs at least two"), std::string::npos) << e.what();
  }
}

// Attention problems are asked with their head counts: hidden, each context length is answered
// from the other (it was a miss, "sdpa needs heads >= 1", before the query carried them).
TEST(Evaluate, AttentionIsAskedWithItsHeads) {
  EvalDb db;
  const std::string split = "sdpa_split[vec=4,keys=1,wg=32,slices=16,qpg=1]";
  const std::string fused = "sdpa_fused[vec=4,keys=1,wg=64,qpg=1]";
  const int64_t a = db.store.upsert_kernel(fake_kernel(split, "{}"));
  const int64_t b = db.store.upsert_kernel(fake_kernel(fused, "{}"));
  std::vector<int64_t> problems;
  for (const uint32_t context : {512u, 1024u}) {
    db::Problem p = fake_problem(1, context, 128, 0, "sdpa");
    p.heads = 32;
    p.kv_heads = 8;
    problems.push_back(db.store.upsert_problem(p));
  }
  db.add(problems[0], a, 100);
  db.add(problems[0], b, 400);
  db.add(problems[1], a, 150);
  db.add(problems[1], b, 300);

  const Evaluation e = evaluate_leave_one_out(db.store);
  ASSERT_EQ(e.cases.size(), 2u);
  EXPECT_EQ(e.misses, 0u);
  for (const EvaluationCase& c : e.cases) {
    EXPECT_EQ(c.problem.heads, 32u);
    EXPECT_TRUE(c.regret.has_value()) << c.miss;
  }
  EXPECT_EQ(nlohmann::json::parse(render_evaluation_json(e, 1))["worst"][0]["problem"]["kv_heads"],
            8);
  ASSERT_EQ(e.by_class.size(), 1u);  // attention is summarised per head counts
  EXPECT_EQ(e.by_class.at("sdpa 32/8").count, 2u);
  const std::string text = render_evaluation_text(e, 2);
  EXPECT_NE(text.find("sdpa M=1 L=1024 Hq=32 Hkv=8 D=128"), std::string::npos) << text;
  EXPECT_NE(text.find("  sdpa 32/8 "), std::string::npos) << text;
}

}  // namespace
}  // namespace vktune::db::ops
