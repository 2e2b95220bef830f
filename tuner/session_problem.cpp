// One problem through the stages: chunks of its variants (in order, or as the model search picks
// them) get instances over the problem's shared buffers, the gate and a first timing; then
// halving's later stages, the finalists (with the baselines) and the winner. Device failures are
// noted here and recovered between chunks (session.cpp).
#include <algorithm>
#include <set>
#include <unordered_set>
#include <nlohmann/json.hpp>

#include "db/error.h"
#include "kernels/shader_compiler.h"
#include "kernels/vk/command_buffer.h"
#include "tuner/batch_timer.h"
#include "tuner/clock_probe.h"
#include "tuner/gate_stage.h"
#include "tuner/parallel.h"
#include "tuner/problem_state.h"
#include "tuner/records.h"
#include "tuner/search.h"
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

// Whether stage one is over for the candidate: it failed, or it has a first timing.
bool finished(const Candidate& c) { return c.status != db::Status::ok || c.stats.has_value(); }

// Records one dispatch of the candidate's instance (which rotates its weight copies by index)
// and, before each sample, its share of the problem's workspace zeroed: the variants timed
// beside it write there too.
TimedVariant recorder(const Candidate* c) {
  TimedVariant v{[c](vk::CommandBuffer& cb, uint32_t i) { c->instance->record(cb, i); }, {}};
  if (c->instance->has_workspace()) {
    v.setup = [c](vk::CommandBuffer& cb) { c->instance->record_workspace_reset(cb); };
  }
  return v;
}

// The problem's input data seed: the run's seed mixed with a hash of the problem's description,
// not its position in the run's list, so a problem is timed on the same data in every run
// that shares a seed: a tuning run, the bench re-timing its winners, a --resume.
uint64_t data_seed(const kernels::Problem& p, uint64_t seed) {
  return content_hash_value(kernels::describe(p)) ^ seed;
}

}  // namespace

void Session::fail(Candidate& c, db::Status status, const std::string& message) {
  c.status = status;
  c.message = message;
  c.instance.reset();
}

void Session::fail_on_device(Candidate& c, const vk::Error& e) {
  if (e.device_lost() || e.result() == VK_TIMEOUT) {
    fail(c, e.device_lost() ? db::Status::device_lost : db::Status::timeout, e.what());
    device_failed(e.what());
  } else {
    fail(c, db::Status::unsupported, e.what());  // e.g. the driver refused the pipeline
  }
}

bool Session::make_instance(Candidate& c) {
  ProblemState& s = *shared_;
  try {
    kernels::KernelInstance::ExternalBuffers external;
    external.out = &*s.out;
    external.workspace = &*s.workspace;
    c.instance = std::make_unique<kernels::KernelInstance>(kernels::KernelInstance::create(
        *device_, compiler_, *c.family, c.knobs, s.problem, s.inputs.at(c.family->layout(c.knobs)),
        external, pipelines_.get()));
    c.bytes_moved = c.instance->bytes_moved();
    c.flops = c.instance->flops();
    return true;
  } catch (const kernels::IllegalVariant& e) {
    fail(c, db::Status::unsupported, e.what());
  } catch (const CompileError& e) {
    fail(c, db::Status::compile_error, e.what());
  } catch (const vk::Error& e) {
    fail_on_device(c, e);
  } catch (const std::exception& e) {
    fail(c, db::Status::unsupported, e.what());
  }
  return false;
}

void Session::store(const Candidate& c) {
  db::Measurement m;
  m.run_id = run_id_;
  m.device_id = device_id_;
  m.problem_id = problem_id_;
  m.kernel_id = c.kernel_id;
  m.status = c.status;
  m.message = c.message;
  if (c.status == db::Status::ok || c.status == db::Status::wrong_result) {
    m.max_error = c.max_error;
  }
  if (c.timed()) {
    const SampleStats& s = *c.stats;
    m.n = s.n;
    m.median_ns = s.median;
    m.min_ns = s.min;
    m.p10_ns = s.p10;
    m.p90_ns = s.p90;
    m.gbps = static_cast<double>(c.bytes_moved) / s.median;
    m.gflops = c.flops / s.median;
  }
  {
    StageTimer t(profile_, Stage::store);
    writer_.add(m);
  }
  ++stored_;
  if (options_.abort_after_results && stored_ >= *options_.abort_after_results) {
    throw TuneAborted("aborted after " + std::to_string(stored_) + " results (test hook)");
  }
}

void Session::flush() {
  StageTimer t(profile_, Stage::store);
  writer_.flush();
}

void Session::stop_if_asked() {
  if (options_.stop == nullptr || !options_.stop->load()) return;
  flush();
  throw TuneInterrupted("stopped on request with " + std::to_string(stored_) +
                        " results of run " + std::to_string(run_id_) + " stored");
}

bool Session::prepare_shared(std::span<Candidate* const> candidates) {
  try {
    shared_->prepare(*device_, candidates, weight_copies(shared_->problem));
    return true;
  } catch (const vk::Error& e) {
    if (!(e.device_lost() || e.result() == VK_TIMEOUT)) throw;
    device_failed(e.what());
    return false;
  }
}

bool Session::stage_one(std::span<Candidate* const> chunk, const TimingOptions& timing) {
  ProblemState& s = *shared_;
  // The shared buffers first (uploads), then every candidate's instance on all cores.
  {
    StageTimer t(profile_, Stage::upload);
    const auto start = std::chrono::steady_clock::now();
    if (!prepare_shared(chunk)) return false;
    if (budget_) budget_->add_setup(std::chrono::steady_clock::now() - start);
  }
  {
    StageTimer t(profile_, Stage::instance);
    parallel_for(chunk.size(), [&](size_t i) { make_instance(*chunk[i]); });
  }
  if (!lost_reason_.empty()) return false;

  // Gate: batches of what the read-back holds; a failed batch is retried one by one.
  // A stage of one sample (halving's first) takes a slow variant's gate dispatch as that sample
  // when the gate's submission ran at the peak clock by its own readings: the sample's span or
  // more of GPU time is then measured once, not twice (on the H100 one dispatch of every
  // variant of a problem is most of its first stage). At a lower clock a gate dispatch reads
  // 3-8x slow (the lm_head problems, before these readings existed) and the time stage takes
  // the sample instead. The clock is brought up first, as the time stage does.
  const bool one_sample = timing.max_samples == 1 && probe_ != nullptr;
  std::vector<Candidate*> passed;
  std::vector<double> estimate;
  for (size_t first = 0; first < chunk.size();) {
    std::vector<Candidate*> batch;
    std::vector<const kernels::KernelInstance*> instances;
    std::vector<double> tolerances;
    for (; first < chunk.size() && batch.size() < s.gate_stage->capacity(); ++first) {
      Candidate* c = chunk[first];
      if (!c->instance) continue;
      batch.push_back(c);
      instances.push_back(c->instance.get());
      tolerances.push_back(c->family->tolerance(s.problem));
    }
    std::vector<GateOutcome> outcomes;
    try {
      if (one_sample) timer_->warm_up(timing);
      StageTimer t(profile_, Stage::gate);
      // Each variant gets the timeout of one submission: a driver that compiles a pipeline at
      // its first dispatch (lavapipe) spends seconds on a batch that runs in microseconds.
      outcomes = s.gate_stage->run(instances, tolerances,
                                   options_.timing.timeout * static_cast<int64_t>(batch.size()),
                                   instance_.validation() ? &instance_.validation_log() : nullptr,
                                   probe_.get());
    } catch (const vk::Error& e) {
      // Which variant of a batch failed is unknown: the caller tries each again on its own.
      if (batch.size() > 1) {
        device_failed(e.what());
        return false;
      }
      fail_on_device(*batch.front(), e);
      if (!lost_reason_.empty()) return false;
      continue;
    }
    for (size_t i = 0; i < batch.size(); ++i) {
      Candidate& c = *batch[i];
      const kernels::CheckResult& check = outcomes[i].check;
      c.max_error = check.max_error;
      // Under --validate a variant whose dispatch breaks a rule of the API fails, whatever it
      // computed: its result holds on this driver by chance, if at all. (No status of its own:
      // wrong_result is the one that can never be selected.)
      if (!outcomes[i].validation.empty()) {
        fail(c, db::Status::wrong_result, "Vulkan validation: " + outcomes[i].validation);
        continue;
      }
      if (!check.ok) {
        fail(c, db::Status::wrong_result,
             "max error " + std::to_string(check.max_error) + " of the bound at output " +
                 std::to_string(check.worst) + ", " + std::to_string(check.non_finite) +
                 " non-finite outputs");
        continue;
      }
      if (one_sample && outcomes[i].slowdown <= kAtPeak &&
          outcomes[i].dispatch_ns >= timing.min_sample_ns) {
        const double sample = outcomes[i].dispatch_ns;
        c.stats = summarize(std::span<const double>(&sample, 1));
        profile_.count_gate_sample();
        continue;
      }
      passed.push_back(&c);
      estimate.push_back(outcomes[i].dispatch_ns);
    }
  }

  // Time: the survivors of the gate in shared submissions.
  std::vector<TimedVariant> records;
  for (Candidate* c : passed) {
    records.push_back(recorder(c));
  }
  try {
    const std::vector<SampleStats> stats = timer_->measure(records, estimate, timing);
    for (size_t i = 0; i < passed.size(); ++i) passed[i]->stats = stats[i];
  } catch (const vk::Error& e) {
    if (passed.size() == 1) {
      fail_on_device(*passed.front(), e);
    } else {
      device_failed(e.what());
      return false;
    }
  }
  return true;
}

bool Session::retime(const std::vector<Candidate*>& list, const TimingOptions& timing) {
  std::vector<Candidate*> live;
  std::vector<TimedVariant> records;
  std::vector<double> estimate;
  {
    StageTimer t(profile_, Stage::upload);
    if (!prepare_shared(list)) return false;
  }
  {
    StageTimer t(profile_, Stage::instance);
    for (Candidate* c : list) {
      if (!c->instance && !make_instance(*c)) continue;
      live.push_back(c);
      estimate.push_back(c->stats->median);
      records.push_back(recorder(c));
    }
  }
  try {
    const std::vector<SampleStats> stats = timer_->measure(records, estimate, timing);
    for (size_t i = 0; i < live.size(); ++i) live[i]->stats = stats[i];
    return true;
  } catch (const vk::Error& e) {
    if (!(e.device_lost() || e.result() == VK_TIMEOUT)) throw;
    device_failed(e.what());  // keep the earlier stages' numbers
    return false;
  }
}

ProblemOutcome Session::tune_problem(size_t index, int64_t problem_id, std::vector<Candidate> list,
                                     ProblemOutcome outcome) {
  const kernels::Problem& problem = options_.problems[index];
  problem_id_ = problem_id;
  progress_.begin_problem(index, options_.problems.size(), kernels::describe(problem),
                          list.size());
  if (list.empty()) {  // every variant measured before (--resume, --fill): nothing to set up
    // A resumed run keeps the record the interrupted process wrote when it finished the problem.
    store_.put_coverage({run_id_, device_id_, problem_id, static_cast<uint32_t>(outcome.space), 0,
                         {}, false},
                        db::OnConflict::keep);
    record_winner(problem_id, list, outcome);
    progress_.end_problem(describe_winner(outcome), outcome.winner_key);
    return outcome;
  }
  uint64_t workspace = 0;
  for (const Candidate& c : list) {
    workspace = std::max(workspace, c.family->workspace_bytes(c.knobs, problem));
  }
  const auto setup_start = std::chrono::steady_clock::now();
  shared_ = std::make_unique<ProblemState>(
      problem, kernels::make_random(problem, data_seed(problem, options_.seed)), workspace);
  if (budget_) budget_->add_setup(std::chrono::steady_clock::now() - setup_start);

  // Stage one, chunk by chunk: gate, then a first timing (the full one when exhaustive).
  // The model strategy estimates what its search picks as halving does, then halves the same way.
  const bool halving = options_.strategy != Strategy::exhaustive;
  std::optional<ModelSearch> search;
  if (options_.strategy == Strategy::model) search = model_search(problem, list);
  // Every stage-one sample comes from the time stage, never from the gate: a gate dispatch is
  // the variant's first, at whatever clock the GPU fell to while the CPU checked the batch before
  // (on the H100 3-8x the variant's time on the lm_head problems), and halving drops variants on
  // that one sample.
  const TimingOptions first = halving ? stage_timing(options_.timing, 0) : options_.timing;
  Candidate* best = nullptr;
  size_t done = 0;
  if (budget_) budget_->start_measuring(std::chrono::steady_clock::now());
  for (size_t next = 0; search || next < list.size();) {
    stop_if_asked();
    // Every problem measures at least its first chunk (the likeliest winners and baselines), so
    // an overrun of the problems before it cannot leave it without a winner.
    if (done > 0 && out_of_time()) {
      outcome.budget_cut = true;
      break;
    }
    // Under a budget, a chunk no longer than the time left at this problem's pace so far, its
    // setup left out (a small first one to learn it), so the problems after it are not starved
    // by an overrun.
    size_t size = kChunk;
    if (budget_) {
      size = done == 0 ? kFirstChunkUnderBudget
                       : budget_->chunk(std::chrono::steady_clock::now(), done, kChunk);
    }
    std::vector<Candidate*> chunk;
    if (search) {
      const std::vector<size_t> picks = search->next(size);
      if (picks.empty()) break;  // the search stopped: stop_reason() says why
      for (size_t i : picks) {
        if (!list[i].resumed) chunk.push_back(&list[i]);
      }
    } else {
      for (; next < list.size() && chunk.size() < size; ++next) {
        if (!list[next].resumed) chunk.push_back(&list[next]);
      }
    }
    if (chunk.empty()) continue;  // only resumed ones were left: stage one is over
    if (!stage_one(chunk, first)) {
      // The device failed in a batch: every unfinished candidate of the chunk again, alone.
      recover_device(list);
      for (Candidate* c : chunk) {
        if (finished(*c)) continue;
        c->stats.reset();
        stage_one(std::span<Candidate* const>(&c, 1), first);
        recover_device(list);
      }
    }
    recover_device(list);  // a single variant's failure leaves the device to re-create
    for (Candidate* c : chunk) {
      if (!finished(*c)) continue;  // the device failed even alone: not stored, tried next run
      store(*c);
      ++outcome.measured;
      if (c->status != db::Status::ok) ++outcome.failed;
      if (c->timed() && (best == nullptr || c->stats->median < best->stats->median)) best = c;
      if (search) {
        search->measured(static_cast<size_t>(c - list.data()),
                         c->timed() ? std::optional<double>(c->stats->median) : std::nullopt);
      }
      ++done;
    }
    flush();
    progress_.variant_done(done, best ? best->key : "",
                           best ? std::optional<double>(best->stats->median) : std::nullopt);
  }
  if (search) {
    progress_.note("model: estimated " + std::to_string(search->handed_out()) + " of " +
                   std::to_string(outcome.legal) + " legal variants; " + search->stop_reason());
  }
  std::vector<Candidate*> pool;
  for (Candidate& c : list) {
    if (c.timed()) pool.push_back(&c);
  }
  db::Coverage coverage;
  coverage.run_id = run_id_;
  coverage.device_id = device_id_;
  coverage.problem_id = problem_id;
  coverage.legal = static_cast<uint32_t>(outcome.space);
  coverage.budget_cut = outcome.budget_cut;
  coverage.stages.push_back(static_cast<uint32_t>(pool.size()));

  // A one-sample reading far behind a kept neighbour is sampled again before halving drops the
  // variant on it (search.h); the second sample is its time from then on.
  if (halving && pool.size() > options_.finalists && !out_of_time()) {
    stop_if_asked();
    const Recheck r = recheck(pool);
    if (!r.again.empty()) {
      const bool ok = retime(r.again, first);
      for (Candidate* c : r.again) {
        store(*c);
        if (c->timed() && c->stats->median <= r.bound) ++outcome.recovered;
      }
      flush();
      outcome.rechecked = r.again.size();
      if (!ok) recover_device(list);
    }
  }

  // Halving: what is near the best (search.h) advances to a longer measurement until the finalists remain.
  for (int stage = 1; halving && pool.size() > options_.finalists &&
                      !out_of_time();
       ++stage) {
    stop_if_asked();
    // After stage one's single sample, the nearest tuned problems' winners advance whatever
    // it read (search.h); later stages take medians of three samples or more.
    std::vector<Candidate*> survivors = halve(
        pool, options_.finalists,
        stage == 1 ? nearest_winners(tuned_winners_, problem, kProtectedNeighbours) : std::set<std::string>{});
    for (Candidate* c : pool) {
      if (std::find(survivors.begin(), survivors.end(), c) == survivors.end()) c->instance.reset();
    }
    const bool ok = retime(survivors, stage_timing(options_.timing, stage));
    coverage.stages.push_back(static_cast<uint32_t>(survivors.size()));
    for (Candidate* c : survivors) store(*c);
    flush();
    pool = std::move(survivors);
    if (!ok) {
      recover_device(list);
      break;
    }
  }

  std::vector<Candidate*> top = ranked(pool);
  if (top.size() > options_.finalists) top.resize(options_.finalists);
  // The baselines every speedup is quoted against are re-measured right after the finalists, in
  // rounds of their own: the naive kernel takes milliseconds a dispatch at large M, and a quoted
  // speedup needs no more than kBaselineRounds. (The bench makes everything it re-times a finalist.)
  std::vector<Candidate*> baselines;
  std::erase_if(top, [&](Candidate* c) {
    const bool baseline = kernels::is_baseline(*c->family);
    if (baseline) baselines.push_back(c);
    return baseline;
  });
  const std::string fixed = fixed_routing_key(problem);
  Candidate* naive = nullptr;
  const auto add_baseline = [&](Candidate* c) {
    if (std::find(top.begin(), top.end(), c) == top.end() &&
        std::find(baselines.begin(), baselines.end(), c) == baselines.end()) {
      baselines.push_back(c);
    }
  };
  for (Candidate& c : list) {
    if (!c.timed()) continue;
    if (kernels::is_baseline(*c.family) &&
        (naive == nullptr || c.stats->median < naive->stats->median)) {
      naive = &c;
    }
    if (c.key == fixed) add_baseline(&c);
  }
  if (naive != nullptr) add_baseline(naive);
  // Interleaved rounds, even when the budget is spent: the numbers stored come from these.
  TimingOptions final_rounds = options_.timing;
  final_rounds.min_samples = final_rounds.max_samples = kFinalRounds;
  TimingOptions baseline_rounds = options_.timing;
  baseline_rounds.min_samples = baseline_rounds.max_samples = kBaselineRounds;
  uint32_t remeasured = 0;
  for (const auto& [group, rounds] :
       {std::pair{&top, final_rounds}, std::pair{&baselines, baseline_rounds}}) {
    if (group->empty() || !retime(*group, rounds)) continue;
    remeasured += static_cast<uint32_t>(group->size());
    for (Candidate* c : *group) store(*c);
  }
  if (remeasured > 0) coverage.stages.push_back(remeasured);
  flush();
  store_.put_coverage(coverage);
  recover_device(list);

  record_winner(problem_id, list, outcome);
  if (options_.strategy == Strategy::model) learn(problem, list);
  for (Candidate& c : list) c.instance.reset();
  shared_.reset();
  progress_.end_problem(describe_winner(outcome), outcome.winner_key);
  return outcome;
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
