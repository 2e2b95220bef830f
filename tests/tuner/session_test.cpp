// A tuning run on the test device over a tiny problem: every legal variant stored, the
// fastest correct one selected, a deliberately wrong variant stored as wrong_result and never
// selected, one the validation layer flags failed likewise, and a run aborted midway resumed
// without loss or duplicates.
#include "tuner/session.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <regex>
#include <utility>
#include <set>
#include <string>
#include <vector>

#include "kernels/vk/compiler_probe.h"
#include "kernels/families/families.h"
#include "tests/kernels/vulkan_fixture.h"
#include "tests/temp_dir.h"

namespace vktune::tuner {
namespace {

// The naive shader under a test's name, with the weight layout and grid the test gives it: a
// deliberately broken variant the session must catch.
class BrokenNaiveFamily final : public kernels::Family {
 public:
  using Grid = std::array<uint32_t, 3> (*)(const kernels::Problem&, const vk::DeviceInfo&);
  BrokenNaiveFamily(std::string name, kernels::Layout layout, Grid grid)
      : Family(name, kernels::DType::f32, kernels::Op("q4gsw"), {{"wg", kernels::ints({64})}}),
        layout_(layout),
        grid_(grid) {}
  kernels::Constraints constraints(const kernels::Knobs&) const override {
    return {32, 8, 1, 1, 0};
  }
  kernels::Layout layout(const kernels::Knobs&) const override { return layout_; }
  uint32_t workgroup_size(const kernels::Knobs&) const override { return 64; }
  uint32_t shared_bytes(const kernels::Knobs&) const override { return 0; }
  kernels::ShaderSpec source(const kernels::Knobs&) const override {
    return {"q4gsw_naive.comp", {}, {{0, 64}}};
  }
  std::array<uint32_t, 3> groups(const kernels::Knobs&, const kernels::Problem& p,
                                 const vk::DeviceInfo& info) const override {
    return grid_(p, info);
  }

 private:
  kernels::Layout layout_;
  Grid grid_;
};

// Fed the packed layout it cannot read: compiles, runs, and is wrong.
BrokenNaiveFamily wrong_layout_family() {
  return {"test_wrong_layout", kernels::Layout::packed,
          [](const kernels::Problem& p, const vk::DeviceInfo&) -> std::array<uint32_t, 3> {
            return {p.m, 1, 1};
          }};
}

// Dispatched with one workgroup more than the device allows: its grid-stride loop still
// computes the right answer on lavapipe, but the dispatch breaks a rule of the API, which the
// validation layer reports as it is recorded.
BrokenNaiveFamily oversized_grid_family() {
  return {"test_oversized_grid", kernels::Layout::raw,
          [](const kernels::Problem&, const vk::DeviceInfo& info) -> std::array<uint32_t, 3> {
            return {info.limits.max_workgroup_count[0] + 1, 1, 1};
          }};
}

class SessionTest : public test::VulkanFixture {
 protected:
  TuneOptions Options() {
    TuneOptions o;
    o.problems = {problem_};
    o.strategy = Strategy::halving;
    o.cache = CacheMode::hot;
    o.timing.budget = std::chrono::milliseconds(20);
    o.timing.min_sample_ns = 20'000;
    o.families = {&*kernels::find_family("q4gsw_naive"), &wrong_};
    return o;
  }
  size_t LegalVariants() const {
    return Legal({&*kernels::find_family("q4gsw_naive"), &wrong_});
  }
  // The problem's whole space: every catalogue family of its op, and the test's own.
  size_t SpaceVariants() const {
    std::vector<const kernels::Family*> all(kernels::families().begin(), kernels::families().end());
    all.push_back(&wrong_);
    return Legal(all);
  }
  size_t Legal(const std::vector<const kernels::Family*>& families) const {
    size_t legal = 0;
    for (const kernels::Family* f : families) {
      if (f->op() != problem_.op) continue;
      for (const auto& knobs : f->all_variants()) {
        if (f->legality(knobs, problem_, device().info(), linked_compiler_support())) ++legal;
      }
    }
    return legal;
  }
  // Progress goes to `log` where given, else stderr.
  TuneResult Run(db::Store& store, TuneOptions options, std::string* log = nullptr) {
    char* text = nullptr;
    size_t size = 0;
    std::FILE* out = log ? open_memstream(&text, &size) : stderr;
    TuneResult result;
    {
      Progress progress(out, /*force_plain=*/true);
      // The session makes its own device from the fixture's instance, as `vktune tune` does.
      const size_t index = device().info().index;
      Session session(instance(), index, store, std::move(options), progress);
      result = session.run();
    }
    if (log) {
      std::fclose(out);
      *log = std::string(text, size);
      std::free(text);
    }
    return result;
  }

  const kernels::Problem problem_{kernels::Op("q4gsw"), 1, 40, 64, 32, true};
  const BrokenNaiveFamily wrong_ = wrong_layout_family();
};

TEST_F(SessionTest, StoresEveryLegalVariantAndSelectsTheFastestCorrectOne) {
  db::Store store = db::Store::open_memory();
  const TuneResult result = Run(store, Options());
  const size_t legal = LegalVariants();
  ASSERT_EQ(result.problems.size(), 1u);
  EXPECT_EQ(result.problems[0].legal, legal);
  EXPECT_GT(result.copy_gbps, 0);

  const auto measurements = store.measurements();
  std::set<int64_t> kernels_measured;
  for (const auto& m : measurements) kernels_measured.insert(m.kernel_id);
  EXPECT_EQ(kernels_measured.size(), legal);
  EXPECT_EQ(measurements.size(), legal);  // re-measures update, never duplicate

  // The wrong variant is stored as such, and the winner is the fastest ok measurement.
  std::map<int64_t, std::string> keys;
  for (const auto& k : store.kernels()) keys[k.id] = k.variant_key;
  const db::Measurement* fastest = nullptr;
  bool saw_wrong = false;
  for (const auto& m : measurements) {
    if (keys[m.kernel_id] == "test_wrong_layout[wg=64]") {
      EXPECT_EQ(m.status, db::Status::wrong_result);
      saw_wrong = true;
    }
    if (m.status == db::Status::ok && (!fastest || *m.median_ns < *fastest->median_ns)) {
      fastest = &m;
    }
  }
  EXPECT_TRUE(saw_wrong);
  ASSERT_NE(fastest, nullptr);
  const auto best = store.best();
  ASSERT_EQ(best.size(), 1u);
  EXPECT_EQ(best[0].kernel_id, fastest->kernel_id);
  EXPECT_EQ(result.problems[0].winner_key, keys[fastest->kernel_id]);
  EXPECT_NE(*result.problems[0].winner_key, "test_wrong_layout[wg=64]");
}

// One shape in both dtypes: two problems, each gated (the f16 one read back as fp16) and won by
// a variant of its own dtype; the f32 family never measures the f16 problem or the reverse.
TEST_F(SessionTest, EachDtypeIsItsOwnProblemWonByItsOwnFamily) {
  if (!device().info().features.storage_16bit) GTEST_SKIP() << "no 16-bit storage";
  kernels::Problem half = problem_;
  half.dtype = kernels::DType::f16;
  TuneOptions options = Options();
  options.problems = {problem_, half};
  options.families = {&*kernels::find_family("q4gsw_naive"),
                      &*kernels::find_family("q4gsw_naive_f16")};
  db::Store store = db::Store::open_memory();
  const TuneResult result = Run(store, std::move(options));
  ASSERT_EQ(result.problems.size(), 2u);
  std::map<int64_t, std::string> dtype_of, key_of;
  for (const auto& p : store.problems()) dtype_of[p.id] = p.dtype;
  for (const auto& k : store.kernels()) key_of[k.id] = k.variant_key;
  size_t measured = 0;
  for (const auto& m : store.measurements()) {
    EXPECT_EQ(m.status, db::Status::ok) << key_of[m.kernel_id] << " " << m.message;
    EXPECT_EQ(key_of[m.kernel_id].starts_with("q4gsw_naive_f16["), dtype_of[m.problem_id] == "f16")
        << key_of[m.kernel_id] << " measured on a " << dtype_of[m.problem_id] << " problem";
    ++measured;
  }
  EXPECT_EQ(measured, 2 * kernels::find_family("q4gsw_naive")->all_variants().size());
  std::set<std::string> winner_dtypes;
  for (const auto& best : store.best()) winner_dtypes.insert(dtype_of[best.problem_id]);
  EXPECT_EQ(winner_dtypes, (std::set<std::string>{"f16", "f32"}));
}

// Under the validation layer (--validate), a variant whose dispatch draws a message fails with
// that message, and the run goes on to measure and rank the rest.
TEST_F(SessionTest, AVariantTheValidationLayerFlagsFails) {
  if (!instance().validation()) GTEST_SKIP() << "needs VKTUNE_VALIDATION=1 (ctest sets it)";
  const BrokenNaiveFamily oversized = oversized_grid_family();
  TuneOptions options = Options();
  options.families = {&*kernels::find_family("q4gsw_naive"), &oversized};
  db::Store store = db::Store::open_memory();
  const TuneResult result = Run(store, options);
  const std::vector<std::string> messages = instance().validation_log().take();
  ASSERT_FALSE(messages.empty());
  EXPECT_NE(messages.front().find("groupCountX"), std::string::npos) << messages.front();

  std::map<int64_t, std::string> keys;
  for (const auto& k : store.kernels()) keys[k.id] = k.variant_key;
  size_t flagged = 0, ok = 0;
  for (const auto& m : store.measurements()) {
    if (keys[m.kernel_id] == "test_oversized_grid[wg=64]") {
      ++flagged;
      EXPECT_EQ(m.status, db::Status::wrong_result);
      EXPECT_NE(m.message.find("Vulkan validation: "), std::string::npos) << m.message;
    } else {
      ok += m.status == db::Status::ok;
    }
  }
  EXPECT_EQ(flagged, 1u);
  EXPECT_GT(ok, 0u);
  ASSERT_TRUE(result.problems[0].winner_key.has_value());
  EXPECT_NE(*result.problems[0].winner_key, "test_oversized_grid[wg=64]");
}

// The driver's pipeline cache outlives the run: the first tune saves it, the second starts from
// it, and the second's results are the first's (every variant's status and error).
TEST_F(SessionTest, ASecondTuneStartsFromTheSavedPipelineCache) {
  testing::TempDir dir;
  TuneOptions options = Options();
  options.pipeline_cache = dir.path();
  const std::filesystem::path file =
      dir.path() / (vk::uuid_hex(device().info().pipeline_cache_uuid) + ".vkpc");
  const std::regex loaded(R"(, (\d+) bytes loaded\))");
  std::map<std::string, std::pair<db::Status, std::optional<double>>> first_results;
  for (int run = 0; run < 2; ++run) {
    db::Store store = db::Store::open_memory();
    std::string log;
    Run(store, options, &log);
    ASSERT_TRUE(std::filesystem::exists(file)) << log;
    std::smatch bytes;
    ASSERT_TRUE(std::regex_search(log, bytes, loaded)) << log;
    // The first run found no file; the second loaded the one the first saved.
    EXPECT_EQ(bytes[1] == "0", run == 0) << log;
    EXPECT_EQ(log.find("warning"), std::string::npos) << log;
    std::map<int64_t, std::string> keys;
    for (const auto& k : store.kernels()) keys[k.id] = k.variant_key;
    std::map<std::string, std::pair<db::Status, std::optional<double>>> results;
    for (const auto& m : store.measurements()) results[keys[m.kernel_id]] = {m.status, m.max_error};
    ASSERT_EQ(results.size(), LegalVariants());
    if (run == 0) {
      first_results = results;
    } else {
      EXPECT_EQ(results, first_results);
    }
  }
}

TEST_F(SessionTest, AnAbortedRunResumesWithoutLossOrDuplicates) {
  db::Store store = db::Store::open_memory();
  TuneOptions first = Options();
  first.abort_after_results = 4;
  EXPECT_THROW(Run(store, first), TuneAborted);
  ASSERT_EQ(store.measurements().size(), 4u);
  const auto before = store.measurements();

  TuneOptions second = Options();
  second.resume = true;
  const TuneResult result = Run(store, second);
  EXPECT_EQ(result.problems[0].resumed, 4u);
  const auto after = store.measurements();
  std::set<int64_t> kernels_measured;
  for (const auto& m : after) {
    EXPECT_EQ(m.run_id, before[0].run_id);  // the same run continued
    kernels_measured.insert(m.kernel_id);
  }
  EXPECT_EQ(kernels_measured.size(), LegalVariants());
  EXPECT_EQ(after.size(), LegalVariants());
  // What was stored before the abort kept its row (a later stage may have re-timed it).
  for (const auto& b : before) {
    const auto same = std::find_if(after.begin(), after.end(),
                                   [&](const db::Measurement& a) { return a.id == b.id; });
    ASSERT_NE(same, after.end());
    EXPECT_EQ(same->kernel_id, b.kernel_id);
    EXPECT_EQ(same->status, b.status);
  }
  EXPECT_EQ(store.runs().size(), 1u);
  // The resumed variants rejoined the later stages: stage one counts every timed variant, those
  // timed before the abort included, as an uninterrupted run's does.
  const auto coverage = store.coverage();
  ASSERT_EQ(coverage.size(), 1u);
  size_t ok = 0;
  for (const auto& m : after) ok += m.status == db::Status::ok;
  EXPECT_EQ(coverage[0].stages.front(), ok);
  EXPECT_EQ(coverage[0].measured, LegalVariants());
}

// A resumed run leaves a problem the interrupted one finished as it was: what that problem's
// search left unmeasured (here the test family, filtered out the first time, as halving's screen
// leaves a dropped family) is not measured on resume, however long it would take.
TEST_F(SessionTest, AResumedRunLeavesTheProblemsItFinishedAsTheyWere) {
  const kernels::Problem second_problem{kernels::Op("q4gsw"), 1, 32, 64, 32, true};
  auto options = [&](bool filtered) {
    TuneOptions o = Options();
    o.strategy = Strategy::exhaustive;
    o.problems = {problem_, second_problem};  // problem_ first: the longer dispatch
    if (filtered) {
      o.variant_filter = [this](const kernels::Problem& p, const std::string& key) {
        return !(p == problem_) || key.starts_with("q4gsw_naive[");
      };
    }
    return o;
  };
  // How many results the first problem stores alone: the interrupted run stops at the second's
  // first.
  db::Store scratch = db::Store::open_memory();
  TuneOptions alone = options(true);
  alone.problems = {problem_};
  const size_t first_results = Run(scratch, alone).stored;

  db::Store store = db::Store::open_memory();
  TuneOptions first = options(true);
  first.abort_after_results = first_results + 1;
  EXPECT_THROW(Run(store, first), TuneAborted);
  ASSERT_EQ(store.coverage().size(), 1u);  // the first problem finished
  const int64_t finished = store.coverage()[0].problem_id;

  TuneOptions second = options(false);
  second.resume = true;
  const TuneResult result = Run(store, second);
  ASSERT_EQ(result.problems.size(), 2u);
  EXPECT_EQ(result.problems[0].measured, 0u);
  std::map<int64_t, std::string> keys;
  for (const db::KernelRecord& k : store.kernels()) keys[k.id] = k.variant_key;
  for (const db::Measurement& m : store.measurements()) {
    if (m.problem_id != finished) continue;
    EXPECT_TRUE(keys.at(m.kernel_id).starts_with("q4gsw_naive["));
  }
  EXPECT_EQ(store.coverage().size(), 2u);
}

// Resume is the same run: stopped inside stage one, inside halving's second stage and inside
// the finalists' re-measurement, the resumed run goes through the stages and the finalists as an
// uninterrupted run does, so each stage's record count (coverage.stages) is the uninterrupted
// run's. With 4 timed variants and 3 finalists, halving keeps 3 whatever the timings; the
// finalists are the top 3 plus the fastest baseline when it is not among them, which turns on
// timings (here every variant is a baseline), in an uninterrupted run as much: 3 or 4.
TEST_F(SessionTest, AResumedRunHasTheStagesOfAnUninterruptedOne) {
  const auto stages_of = [](const db::Store& store) {
    const auto coverage = store.coverage();
    EXPECT_EQ(coverage.size(), 1u);
    return coverage.empty() ? std::vector<uint32_t>{} : coverage[0].stages;
  };
  db::Store whole = db::Store::open_memory();
  Run(whole, Options());
  const std::vector<uint32_t> expected = stages_of(whole);
  ASSERT_EQ(expected.size(), 3u) << "stage one, one halving stage and the finalists";
  const size_t stage_one = LegalVariants();  // results stored by stage one, the failed one too
  for (const size_t stop_after : {size_t{3}, stage_one + 1, stage_one + expected[1] + 1}) {
    SCOPED_TRACE("stopped after " + std::to_string(stop_after) + " results");
    db::Store store = db::Store::open_memory();
    TuneOptions first = Options();
    first.abort_after_results = stop_after;
    EXPECT_THROW(Run(store, first), TuneAborted);
    TuneOptions second = Options();
    second.resume = true;
    Run(store, second);
    const std::vector<uint32_t> resumed = stages_of(store);
    ASSERT_EQ(resumed.size(), expected.size());
    EXPECT_EQ(resumed[0], expected[0]);
    EXPECT_EQ(resumed[1], expected[1]);
    EXPECT_GE(resumed[2], 3u);
    EXPECT_LE(resumed[2], 4u);
    EXPECT_EQ(store.runs().size(), 1u);
  }
}

TEST_F(SessionTest, RecordsCoverageOfEveryProblem) {
  db::Store store = db::Store::open_memory();
  Run(store, Options());
  const auto coverage = store.coverage();
  ASSERT_EQ(coverage.size(), 1u);
  // Legal counts the problem's whole space, not the two families this run was given: measuring
  // those alone leaves the problem partly covered, as the report must show.
  EXPECT_EQ(coverage[0].legal, SpaceVariants());
  EXPECT_GT(SpaceVariants(), LegalVariants());
  EXPECT_EQ(coverage[0].measured, LegalVariants());
  EXPECT_FALSE(coverage[0].budget_cut);
  // Stage one timed every variant but the wrong one; each later stage fewer; the finalists last.
  ASSERT_GE(coverage[0].stages.size(), 2u);
  EXPECT_EQ(coverage[0].stages.front(), LegalVariants() - 1);
  EXPECT_GE(coverage[0].stages.back(), 1u);
}

TEST_F(SessionTest, FillMeasuresOnlyWhatNoRunMeasured) {
  db::Store store = db::Store::open_memory();
  TuneOptions first = Options();
  first.abort_after_results = 3;
  EXPECT_THROW(Run(store, first), TuneAborted);
  TuneOptions fill = Options();
  fill.fill = true;
  const TuneResult result = Run(store, fill);
  EXPECT_EQ(result.problems[0].resumed, 3u);
  EXPECT_EQ(result.problems[0].measured, LegalVariants() - 3);
  EXPECT_EQ(store.runs().size(), 2u);  // a new run, unlike --resume
  std::set<int64_t> kernels_measured;
  for (const auto& m : store.measurements()) kernels_measured.insert(m.kernel_id);
  EXPECT_EQ(kernels_measured.size(), LegalVariants());
  const auto coverage = store.coverage();
  ASSERT_EQ(coverage.size(), 1u);  // the aborted run never finished its problem
  EXPECT_EQ(coverage[0].run_id, result.run_id);
  EXPECT_EQ(coverage[0].measured, LegalVariants() - 3);
  // Fill again: nothing left to measure, the winner still found in the database.
  const TuneResult again = Run(store, fill);
  EXPECT_EQ(again.problems[0].measured, 0u);
  EXPECT_TRUE(again.problems[0].winner_key.has_value());
}

// Without a budget the background pool makes every pipeline of the run, and the problem whose
// dispatch takes longest (bytes and FLOPs on a nominal GPU) is tuned first; a budgeted run
// compiles on demand, in the order it was given.
TEST_F(SessionTest, ThePoolMakesEveryPipelineWhileTheLargestProblemIsTunedFirst) {
  const kernels::Problem larger{kernels::Op("q4gsw"), 4, 80, 128, 32, true};
  for (const bool budgeted : {false, true}) {
    db::Store store = db::Store::open_memory();
    TuneOptions options = Options();
    options.problems = {problem_, larger};
    if (budgeted) options.budget = std::chrono::duration<double>(600);
    std::string log;
    const TuneResult result = Run(store, options, &log);
    ASSERT_EQ(result.problems.size(), 2u);
    EXPECT_EQ(result.problems[0].problem, budgeted ? problem_ : larger) << log;
    std::set<int64_t> measured;
    for (const auto& m : store.measurements()) measured.insert(m.kernel_id);
    EXPECT_EQ(result.profile.pool_pipelines(), budgeted ? 0u : measured.size()) << log;
    EXPECT_EQ(log.find("in the background") != std::string::npos, !budgeted) << log;
  }
}

TEST_F(SessionTest, ABudgetTooSmallForOneVariantIsAnError) {
  db::Store store = db::Store::open_memory();
  TuneOptions options = Options();
  options.budget = std::chrono::duration<double>(1e-9);
  EXPECT_THROW(Run(store, options), std::runtime_error);
}

}  // namespace
}  // namespace vktune::tuner
