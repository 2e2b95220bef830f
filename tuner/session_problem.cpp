// One problem through the stages: its search strategy (search_strategy.h) names the variants
// that get instances over the problem's shared buffers, the gate and a first timing, chunk by
// chunk, then the later stages that narrow the pool; the finalists (with the baselines) are
// re-measured and the winner recorded. This loop knows no strategy; session_stages.cpp measures.
#include <algorithm>
#include <set>
#include <unordered_set>
#include <nlohmann/json.hpp>

#include "db/error.h"
#include "kernels/vk/shader_compiler.h"
#include "tuner/problem_state.h"
#include "tuner/records.h"
#include "tuner/search.h"
#include "tuner/search_strategy.h"
#include "tuner/session.h"

namespace vktune::tuner {
namespace {

// Variants walked through stage one together: enough to keep the GPU busy for a while between
// the CPU's turns, few enough that a budget stops close to its end.
constexpr size_t kChunk = 64;
constexpr size_t kFirstChunkUnderBudget = 8;
// Interleaved rounds of the finalists' re-measurement. The database names the fastest stored
// finalist the winner, so noise that flatters one is kept (the winner's curse): with finalists
// within a percent or two of each other, 7 rounds store winners 1.5-3% below any re-timing on
// the H100. The median of 21 has about 0.58x the spread of 7's, for
// 14 more samples of ~0.2 ms for each of the few finalists.
constexpr uint32_t kFinalRounds = 21;
constexpr uint32_t kBaselineRounds = 7;

std::string describe_winner(const ProblemOutcome& outcome) {
  if (!outcome.winner_key) return "no correct variant";
  char text[64];
  std::snprintf(text, sizeof text, "winner %.2f us  ", outcome.winner_ns / 1000.0);
  return text + *outcome.winner_key;
}

// The problem's input data seed: the run's seed mixed with a hash of the problem's description,
// not its position in the run's list, so a problem is timed on the same data in every run
// that shares a seed: a tuning run, the bench re-timing its winners, a --resume.
uint64_t data_seed(const kernels::Problem& p, uint64_t seed) {
  return content_hash_value(kernels::describe(p)) ^ seed;
}

TimingOptions rounds(const TimingOptions& timing, uint32_t count) {
  TimingOptions r = timing;
  r.min_samples = r.max_samples = count;
  return r;
}

}  // namespace

ProblemOutcome Session::tune_problem(size_t index, int64_t problem_id, std::vector<Candidate> list,
                                     ProblemOutcome outcome) {
  const kernels::Problem& problem = options_.problems[index];
  const Profile before = profile_;
  const auto start = std::chrono::steady_clock::now();
  problem_id_ = problem_id;
  progress_.begin_problem(index, options_.problems.size(), kernels::describe(problem),
                          list.size());
  if (list.empty()) {  // every variant measured before (--resume, --fill): nothing to set up
    // A resumed run keeps the record the interrupted process wrote when it finished the problem.
    store_.put_coverage({run_id_, device_id_, problem_id, static_cast<uint32_t>(outcome.space), 0,
                         {}, false},
                        db::OnConflict::keep);
  } else {
    set_up_problem(problem, list);
    const std::unique_ptr<SearchStrategy> strategy = search_strategy(problem, list, outcome.legal);
    db::Coverage coverage{run_id_, device_id_, problem_id, static_cast<uint32_t>(outcome.space),
                          0, {}, false};
    std::vector<Candidate*> pool = first_stage(list, *strategy, outcome);
    coverage.budget_cut = outcome.budget_cut;
    coverage.stages.push_back(static_cast<uint32_t>(pool.size()));
    later_stages(list, *strategy, pool, outcome, coverage.stages);
    if (const uint32_t remeasured = remeasure_finalists(list, pool)) {
      coverage.stages.push_back(remeasured);
    }
    flush();
    store_.put_coverage(coverage);
    recover_device(list);
    learn(problem, list);
  }
  record_winner(problem_id, list, outcome);
  for (Candidate& c : list) c.instance.reset();
  shared_.reset();
  progress_.end_problem(describe_winner(outcome), outcome.winner_key);
  const auto spent = std::chrono::steady_clock::now() - start;
  progress_.note("    " + format_seconds(std::chrono::duration<double>(spent).count()) + ": " +
                 profile_.since(before).brief(spent));
  return outcome;
}

void Session::set_up_problem(const kernels::Problem& problem, const std::vector<Candidate>& list) {
  uint64_t workspace = 0;
  for (const Candidate& c : list) {
    workspace = std::max(workspace, c.family->workspace_bytes(c.knobs, problem));
  }
  const auto setup_start = std::chrono::steady_clock::now();
  StageTimer t(profile_, Stage::setup);
  shared_ = std::make_unique<ProblemState>(
      problem, kernels::make_random(problem, data_seed(problem, options_.seed)), workspace);
  if (budget_) budget_->add_setup(std::chrono::steady_clock::now() - setup_start);
}

std::unique_ptr<SearchStrategy> Session::search_strategy(const kernels::Problem& problem,
                                                         const std::vector<Candidate>& list,
                                                         size_t legal) {
  if (options_.strategy == Strategy::exhaustive) return exhaustive_strategy(list, options_.timing);
  std::set<std::string> protect = nearest_winners(tuned_winners_, problem, kProtectedNeighbours);
  ScreenRule screen;
  if (options_.strategy == Strategy::model) {
    if (std::optional<ModelSearch> search = model_search(problem, list)) {
      return model_strategy(std::move(*search), legal, options_.timing, options_.finalists,
                            std::move(protect));
    }
    screen = kScreenAll;  // the model's sweep: every variant's time is learnt from
  }
  const std::string fixed = fixed_routing_key(problem);
  return halving_strategy(list, options_.timing, options_.finalists, std::move(protect),
                          [&fixed](const Candidate& c) { return is_reference(c, fixed); }, screen);
}

size_t Session::chunk_size(size_t done) const {
  // Under a budget, a chunk no longer than the time left at this problem's pace so far, its
  // setup left out (a small first one to learn it), so the problems after it are not starved
  // by an overrun.
  if (!budget_) return kChunk;
  return done == 0 ? kFirstChunkUnderBudget
                   : budget_->chunk(std::chrono::steady_clock::now(), done, kChunk);
}

std::vector<Candidate*> Session::first_stage(std::vector<Candidate>& list,
                                             SearchStrategy& strategy, ProblemOutcome& outcome) {
  const Candidate* best = nullptr;
  size_t done = 0;
  if (budget_) budget_->start_measuring(std::chrono::steady_clock::now());
  while (!strategy.stage_one_over()) {
    stop_if_asked();
    // Every problem measures at least its first chunk (the likeliest winners and baselines), so
    // an overrun of the problems before it cannot leave it without a winner.
    if (done > 0 && out_of_time()) {
      outcome.budget_cut = true;
      break;
    }
    const std::vector<size_t> picks = strategy.next(chunk_size(done));
    if (picks.empty()) break;
    std::vector<Candidate*> chunk;
    for (size_t i : picks) {
      if (!list[i].resumed) chunk.push_back(&list[i]);
    }
    if (chunk.empty()) continue;  // only resumed ones were picked
    measure_chunk(list, chunk, strategy.first_timing());
    for (Candidate* c : chunk) {
      if (!c->finished()) continue;  // the device failed even alone: not stored, tried next run
      store(*c);
      ++outcome.measured;
      if (c->status != db::Status::ok) ++outcome.failed;
      if (c->timed() && (best == nullptr || c->stats->median < best->stats->median)) best = c;
      strategy.measured(static_cast<size_t>(c - list.data()),
                        c->timed() ? std::optional<double>(c->stats->median) : std::nullopt);
      ++done;
    }
    flush();
    progress_.variant_done(done, best ? best->key : "",
                           best ? std::optional<double>(best->stats->median) : std::nullopt);
  }
  if (const std::string summary = strategy.summary(); !summary.empty()) progress_.note(summary);
  std::vector<Candidate*> pool;
  for (Candidate& c : list) {
    if (c.timed()) pool.push_back(&c);
  }
  return pool;
}

void Session::later_stages(std::vector<Candidate>& list, SearchStrategy& strategy,
                           std::vector<Candidate*>& pool, ProblemOutcome& outcome,
                           std::vector<uint32_t>& stages) {
  while (!out_of_time()) {
    std::optional<LaterStage> stage = strategy.next_stage(pool);
    if (!stage) return;
    stop_if_asked();
    std::vector<Candidate*>& measure = stage->measure;
    if (stage->narrows) {
      for (Candidate* c : pool) {
        if (std::find(measure.begin(), measure.end(), c) == measure.end()) c->instance.reset();
      }
    }
    const bool ok = retime(measure, stage->timing);
    for (Candidate* c : measure) store(*c);
    flush();
    if (stage->narrows) {
      stages.push_back(static_cast<uint32_t>(measure.size()));
      pool = std::move(measure);
    } else {
      outcome.rechecked = measure.size();
      outcome.recovered = static_cast<size_t>(std::count_if(
          measure.begin(), measure.end(),
          [&](const Candidate* c) { return c->timed() && c->stats->median <= stage->recovered_within; }));
    }
    if (!ok) {
      recover_device(list);
      if (stage->narrows) return;
    }
  }
}

uint32_t Session::remeasure_finalists(std::vector<Candidate>& list,
                                      const std::vector<Candidate*>& pool) {
  const Finalists finalists =
      pick_finalists(list, pool, options_.finalists, fixed_routing_key(shared_->problem));
  // Interleaved rounds, even when the budget is spent: the numbers stored come from these.
  // The baselines every speedup is quoted against are re-measured in rounds of their own: the
  // naive kernel takes milliseconds a dispatch at large M, and a quoted speedup needs no more
  // than kBaselineRounds. (The bench makes everything it re-times a finalist.)
  uint32_t remeasured = 0;
  for (const auto& [group, count] : {std::pair{&finalists.top, kFinalRounds},
                                     std::pair{&finalists.baselines, kBaselineRounds}}) {
    if (group->empty() || !retime(*group, rounds(options_.timing, count))) continue;
    remeasured += static_cast<uint32_t>(group->size());
    for (Candidate* c : *group) store(*c);
  }
  return remeasured;
}

void Session::record_winner(int64_t problem_id, const std::vector<Candidate>& list,
                            ProblemOutcome& outcome) {
  // The winner as the database sees it (a resumed run's earlier results count too).
  if (const std::optional<db::BestRow> best = store_.best(device_id_, problem_id)) {
    const db::BestRow& row = *best;
    outcome.winner_ns = row.median_ns;
    const kernels::Family* family = nullptr;
    kernels::Knobs knobs;
    const auto candidate = std::find_if(list.begin(), list.end(), [&](const Candidate& c) {
      return c.kernel_id == row.kernel_id;
    });
    if (candidate != list.end()) {
      family = candidate->family;
      knobs = candidate->knobs;
      outcome.winner_key = candidate->key;
    } else {  // measured by the run being resumed: read it back
      for (const db::KernelRecord& k : store_.kernels()) {
        if (k.id != row.kernel_id) continue;
        outcome.winner_key = k.variant_key;
        family = kernels::find_family(k.family);
        if (family != nullptr) knobs = family->knobs_from_json(nlohmann::json::parse(k.knobs_json));
      }
    }
    // The runtime hands the winner's SPIR-V to engines: store it as soon as the problem is
    // done, so a run killed later keeps it (the ranked heads follow at the run's end).
    if (options_.store_spirv && family != nullptr) {
      const kernels::ShaderSpec spec = family->shader(knobs);
      const auto spirv = compiler_.compile(spec, *outcome.winner_key);
      store_.upsert_kernel(kernel_record(*family, knobs, spirv.get()), db::OnConflict::keep);
    }
  }
}

void Session::store_answer_spirv(std::span<const int64_t> problem_ids) {
  // A shape nobody tuned is answered from the head of its neighbours' ranked lists: an engine
  // reading this database can dispatch such an answer only with its SPIR-V. Which kernels those
  // are is the store's rule (Catalog::ranked, db::answer_kernels), read once, for this run's
  // problems; this run compiled most of them already (the compiler's cache).
  db::Catalog catalog = store_.catalog(/*with_spirv=*/false);
  const std::set<int64_t> mine(problem_ids.begin(), problem_ids.end());
  const auto elsewhere = [&](const db::BestRow& r) {
    return r.device_id != device_id_ || !mine.count(r.problem_id);
  };
  std::erase_if(catalog.winners, elsewhere);
  std::erase_if(catalog.ranked, elsewhere);
  const std::unordered_set<int64_t> answers = db::answer_kernels(catalog.winners, catalog.ranked);
  db::Transaction transaction = store_.transaction();
  for (db::KernelRecord& k : catalog.kernels) {
    if (!answers.count(k.id)) continue;
    try {
      k.spirv = compile_spirv(compiler_, k);
    } catch (const db::Error&) {
      continue;  // an earlier build's kernel this catalogue cannot compile: no SPIR-V, as before
    }
    store_.upsert_kernel(k, db::OnConflict::keep);
  }
  transaction.commit();
}

}  // namespace vktune::tuner
