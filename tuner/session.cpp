// The tuning loop: candidates -> correctness gate -> timing (strategy) -> finalists -> store.
#include "tuner/session.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <map>
#include <thread>
#include <nlohmann/json.hpp>

#include "kernels/vk/command_buffer.h"
#include "kernels/vk/error.h"
#include "tuner/bandwidth.h"
#include "tuner/clock_probe.h"
#include "tuner/records.h"
#include "runtime/builtin.h"
#include "tuner/search.h"

namespace vktune::tuner {
namespace {

// Cold mode rotates weight copies until they total this much: four times the largest
// last-level cache we tune on (the H100's 50 MB L2), so every dispatch reads from memory.
constexpr uint64_t kColdWorkingSetBytes = 256ull << 20;
constexpr uint32_t kMaxWeightCopies = 32;

double log_distance(const kernels::Problem& a, const db::Problem& b) {
  auto term = [](double x, double y) { return std::pow(std::log(x) - std::log(y), 2); };
  return std::sqrt(term(a.m, b.m) + term(a.n, b.n) + term(a.k, b.k));
}

// The variant today's engines would use for `problem` (runtime/builtin.h), for the baselines.
std::string fixed_routing_key(const kernels::Problem& p) {
  return std::string(
      runtime::builtin_key({kernels::op_name(p.op), "f32", p.m, p.n, p.k, p.group_size}));
}

std::string host_name() {
  char name[256] = {};
  return gethostname(name, sizeof name - 1) == 0 ? name : "unknown";
}

}  // namespace

Session::Session(const vk::Instance& instance, size_t device_index, db::Store& store,
                 TuneOptions options, Progress& progress)
    : instance_(instance),
      device_index_(device_index),
      store_(store),
      options_(std::move(options)),
      progress_(progress) {
  if (options_.families.empty()) {
    options_.families.assign(kernels::families().begin(), kernels::families().end());
  }
  open_device();
  // A CPU device has no clocks to ramp up: the GPU warm-up would only cost time there.
  if (device_->info().type == vk::DeviceType::cpu) options_.timing.max_warmup_ns = 0;
}

Session::~Session() = default;

void Session::open_device() {
  timer_.reset();  // the timer, the probe and the pipelines belong to the old device
  probe_.reset();
  pipelines_.reset();
  device_.reset();
  device_ = std::make_unique<vk::Device>(vk::Device::create(instance_, device_index_));
  pipelines_ = std::make_unique<kernels::PipelineCache>();
  // A GPU's clock follows its load: the timer waits for the peak before every variant's
  // samples. A CPU device has no clock to ramp up.
  if (device_->info().type != vk::DeviceType::cpu) {
    probe_ = std::make_unique<ClockProbe>(*device_, compiler_);
  }
  timer_ = std::make_unique<DispatchTimer>(*device_, probe_.get());
}

void Session::device_failed(const std::string& why) {
  if (lost_reason_.empty()) lost_reason_ = why;
}

void Session::recover_device(std::vector<Candidate>& list) {
  if (lost_reason_.empty()) return;
  // Every instance holds buffers of the old device: they go first.
  for (Candidate& c : list) c.instance.reset();
  inputs_.clear();
  progress_.note("device: " + lost_reason_ + "; re-creating it and carrying on");
  lost_reason_.clear();
  open_device();
}

int64_t Session::start_run() {
  if (options_.resume) {
    // The latest unfinished run on this device continues.
    const auto runs = store_.runs();
    for (auto it = runs.rbegin(); it != runs.rend(); ++it) {
      if (it->ended_at) continue;
      db::MeasurementFilter filter;
      filter.run_id = it->id;
      const auto ms = store_.measurements(filter);
      const bool other_device = std::any_of(ms.begin(), ms.end(), [&](const db::Measurement& m) {
        return m.device_id != device_id_;
      });
      if (!other_device) {
        progress_.note("resuming run " + std::to_string(it->id) + " (started " + it->started_at +
                       ", " + std::to_string(ms.size()) + " results stored)");
        return it->id;
      }
    }
    progress_.note("nothing to resume: starting a new run");
  }
  db::RunRecord run;
  run.strategy = options_.strategy == Strategy::exhaustive ? "exhaustive" : "halving";
  run.tool_version = VKTUNE_VERSION;
  run.host = host_name();
  run.cache_mode = options_.cache == CacheMode::cold ? "cold" : "hot";
  return store_.begin_run(run);
}

TuneResult Session::run() {
  run_start_ = std::chrono::steady_clock::now();
  TuneResult result;
  device_id_ = store_.upsert_device(device_record(device_->info()));
  run_id_ = start_run();
  const Bandwidth bandwidth = measure_copy_bandwidth(*device_, compiler_, probe_.get());
  store_.raise_copy_bandwidth(device_id_, bandwidth.gbps);
  progress_.note("device " + device_->info().name + ": copy bandwidth " +
                 std::to_string(static_cast<int>(bandwidth.gbps)) + " GB/s");
  result.run_id = run_id_;
  result.device_id = device_id_;
  result.copy_gbps = bandwidth.gbps;
  for (size_t i = 0; i < options_.problems.size(); ++i) {
    if (options_.budget) {
      const auto left = *options_.budget - (std::chrono::steady_clock::now() - run_start_);
      const auto share = left / static_cast<double>(options_.problems.size() - i);
      problem_deadline_ = std::chrono::steady_clock::now() +
                          std::chrono::duration_cast<std::chrono::steady_clock::duration>(share);
      has_deadline_ = true;
    }
    result.problems.push_back(tune_problem(i));
  }
  store_.end_run(run_id_);
  result.stored = stored_;
  result.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - run_start_).count();
  return result;
}

bool Session::out_of_time() const {
  return has_deadline_ && std::chrono::steady_clock::now() >= problem_deadline_;
}

std::shared_ptr<const kernels::ProblemBuffers> Session::inputs(const kernels::Problem& problem,
                                                              const kernels::ProblemData& data,
                                                              kernels::Layout layout) {
  auto& slot = inputs_[layout];
  if (!slot) {
    slot = kernels::ProblemBuffers::create(*device_, problem, data, layout, weight_copies(problem));
  }
  return slot;
}

void Session::precompile(const std::vector<Candidate>& list) {
  // Shader and pipeline compilation dominate a run on a slow driver and need no queue: build
  // every candidate's pipeline on all cores first. Failures are left for prepare() to report.
  std::atomic<size_t> next = 0;
  auto work = [&] {
    for (size_t i = next++; i < list.size(); i = next++) {
      try {
        kernels::KernelInstance::pipeline(*device_, compiler_, *list[i].family, list[i].knobs,
                                          pipelines_.get());
      } catch (const std::exception&) {
      }
    }
  };
  std::vector<std::thread> threads;
  const unsigned count = std::max(1u, std::thread::hardware_concurrency());
  for (unsigned t = 1; t < count; ++t) threads.emplace_back(work);
  work();
  for (std::thread& t : threads) t.join();
}

uint32_t Session::weight_copies(const kernels::Problem& problem) const {
  if (options_.cache == CacheMode::hot || problem.op != kernels::Op::q4gsw) return 1;
  const kernels::BindingSizes sizes = kernels::binding_sizes(problem, kernels::Layout::raw);
  const uint64_t per_copy = std::max<uint64_t>(1, sizes.weight + sizes.scales);
  return static_cast<uint32_t>(
      std::clamp<uint64_t>(kColdWorkingSetBytes / per_copy, 1, kMaxWeightCopies));
}

std::vector<Candidate> Session::candidates(const kernels::Problem& problem, int64_t problem_id,
                                           ProblemOutcome& outcome) {
  std::vector<Candidate> list;
  for (const kernels::Family* family : options_.families) {
    if (family->op() != problem.op) continue;
    for (kernels::Knobs& knobs : family->all_variants()) {
      if (!family->legality(knobs, problem, device_->info())) continue;
      std::string key = family->key(knobs);
      if (options_.variant_filter && !options_.variant_filter(problem, key)) continue;
      ++outcome.legal;
      Candidate c;
      c.family = family;
      c.key = std::move(key);
      c.knobs = std::move(knobs);
      c.kernel_id = store_.upsert_kernel(kernel_record(*family, c.knobs, nullptr),
                                         db::OnConflict::keep);
      if (options_.resume && store_.has_measurement(device_id_, problem_id, c.kernel_id)) {
        ++outcome.resumed;
        continue;
      }
      list.push_back(std::move(c));
    }
  }
  warm_start_order(problem, list);
  return list;
}

void Session::warm_start_order(const kernels::Problem& problem,
                               std::vector<Candidate>& list) const {
  // Winners of tuned neighbours first (with a budget they are the likeliest winners here
  // too, and halving keeps them in the race), then the baselines, then every family in turn.
  std::map<int64_t, db::Problem> problems;
  for (db::Problem& p : store_.problems()) problems.emplace(p.id, std::move(p));
  std::map<int64_t, double> rank;  // kernel id -> distance of the nearest problem it won
  for (const db::BestRow& best : store_.best(device_id_)) {
    const db::Problem& p = problems.at(best.problem_id);
    if (p.op != kernels::op_name(problem.op) || p.group_size != problem.group_size) continue;
    const double d = log_distance(problem, p);
    auto [it, inserted] = rank.emplace(best.kernel_id, d);
    if (!inserted) it->second = std::min(it->second, d);
  }
  const std::string fixed = fixed_routing_key(problem);
  order_candidates(list, rank, [&fixed](const Candidate& c) {
    return c.key == fixed || c.family->name() == "q4gsw_naive";
  });
}

void Session::fail(Candidate& c, db::Status status, const std::string& message) {
  c.status = status;
  c.message = message;
  c.instance.reset();
}

bool Session::prepare(Candidate& c, const kernels::Problem& problem,
                      const kernels::ProblemData& data, const Gate& gate) {
  try {
    c.instance = std::make_unique<kernels::KernelInstance>(kernels::KernelInstance::create(
        *device_, compiler_, *c.family, c.knobs, problem,
        inputs(problem, data, c.family->layout(c.knobs)), pipelines_.get()));
    device_->run([&](vk::CommandBuffer& cb) { c.instance->record(cb, 0); },
                 options_.timing.timeout);
    const auto output = c.instance->download_output();
    const kernels::CheckResult check = gate.check(output, c.family->tolerance(problem));
    c.max_error = check.max_error;
    if (!check.ok) {
      fail(c, db::Status::wrong_result,
           "max error " + std::to_string(check.max_error) + " of the bound at output " +
               std::to_string(check.worst) + ", " + std::to_string(check.non_finite) +
               " non-finite outputs");
      return false;
    }
    return true;
  } catch (const kernels::IllegalVariant& e) {
    fail(c, db::Status::unsupported, e.what());
  } catch (const CompileError& e) {
    fail(c, db::Status::compile_error, e.what());
  } catch (const vk::Error& e) {
    if (e.device_lost() || e.result() == VK_TIMEOUT) {
      fail(c, e.device_lost() ? db::Status::device_lost : db::Status::timeout, e.what());
      device_failed(e.what());
    } else {
      fail(c, db::Status::unsupported, e.what());  // e.g. the driver refused the pipeline
    }
  }
  return false;
}

bool Session::time(Candidate& c, const TimingOptions& timing) {
  try {
    c.stats = timer_->measure(
        [&](vk::CommandBuffer& cb, uint32_t i) {
          c.instance->record(cb, i % c.instance->weight_copies());
        },
        timing);
    return true;
  } catch (const vk::Error& e) {
    if (e.device_lost() || e.result() == VK_TIMEOUT) {
      fail(c, e.device_lost() ? db::Status::device_lost : db::Status::timeout, e.what());
      device_failed(e.what());
    } else {
      fail(c, db::Status::unsupported, e.what());
    }
    return false;
  }
}

void Session::store(const Candidate& c, int64_t problem_id) {
  db::Measurement m;
  m.run_id = run_id_;
  m.device_id = device_id_;
  m.problem_id = problem_id;
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
    m.gbps = static_cast<double>(c.instance->bytes_moved()) / s.median;
    m.gflops = c.instance->flops() / s.median;
  }
  store_.add_measurement(m, db::OnConflict::update);
  ++stored_;
  if (options_.abort_after_results && stored_ >= *options_.abort_after_results) {
    throw TuneAborted("aborted after " + std::to_string(stored_) + " results (test hook)");
  }
}

namespace {

std::string describe_winner(const ProblemOutcome& outcome) {
  if (!outcome.winner_key) return "no correct variant";
  char text[64];
  std::snprintf(text, sizeof text, "winner %.2f us  ", outcome.winner_ns / 1000.0);
  return text + *outcome.winner_key;
}

}  // namespace

ProblemOutcome Session::tune_problem(size_t index) {
  const kernels::Problem& problem = options_.problems[index];
  ProblemOutcome outcome;
  outcome.problem = problem;
  const int64_t problem_id = store_.upsert_problem(problem_record(problem));
  std::vector<Candidate> list = candidates(problem, problem_id, outcome);
  progress_.begin_problem(index, options_.problems.size(), kernels::describe(problem),
                          list.size());
  const kernels::ProblemData data = kernels::make_random(problem, options_.seed + index);
  const Gate gate(problem, data);
  precompile(list);

  // Every candidate: gate, then a first timing (the full one when exhaustive).
  const TimingOptions first =
      options_.strategy == Strategy::exhaustive ? options_.timing : stage_timing(options_.timing, 0);
  std::vector<Candidate*> pool;
  Candidate* best = nullptr;
  size_t done = 0;
  for (Candidate& c : list) {
    if (out_of_time()) {
      outcome.budget_cut = true;
      break;
    }
    if (prepare(c, problem, data, gate)) time(c, first);
    store(c, problem_id);
    recover_device(list);
    ++outcome.measured;
    if (c.status != db::Status::ok) ++outcome.failed;
    if (c.timed()) {
      pool.push_back(&c);
      if (best == nullptr || c.stats->median < best->stats->median) best = &c;
    }
    progress_.variant_done(++done, best ? best->key : "",
                           best ? std::optional<double>(best->stats->median) : std::nullopt);
  }

  // Halving: the best third advance to a longer measurement until the finalists remain.
  for (int stage = 1; options_.strategy == Strategy::halving && pool.size() > options_.finalists &&
                      !out_of_time();
       ++stage) {
    std::vector<Candidate*> survivors = halve(pool, options_.finalists);
    for (Candidate* c : pool) {
      if (std::find(survivors.begin(), survivors.end(), c) == survivors.end()) c->instance.reset();
    }
    const TimingOptions timing = stage_timing(options_.timing, stage);
    for (Candidate* c : survivors) {
      if (!c->instance || !time(*c, timing)) continue;
      store(*c, problem_id);
      recover_device(list);
    }
    pool = std::move(survivors);
  }

  std::vector<Candidate*> top = ranked(pool);
  if (top.size() > options_.finalists) top.resize(options_.finalists);
  // The baselines every speedup is quoted against are re-measured beside the finalists.
  const std::string fixed = fixed_routing_key(problem);
  Candidate* naive = nullptr;
  for (Candidate& c : list) {
    if (!c.timed() || !c.instance) continue;
    if (c.family->name() == "q4gsw_naive" &&
        (naive == nullptr || c.stats->median < naive->stats->median)) {
      naive = &c;
    }
    if (c.key == fixed && std::find(top.begin(), top.end(), &c) == top.end()) top.push_back(&c);
  }
  if (naive != nullptr && std::find(top.begin(), top.end(), naive) == top.end()) {
    top.push_back(naive);
  }
  std::erase_if(top, [](const Candidate* c) { return !c->instance; });
  // Even when the budget is spent: the numbers stored come from these rounds.
  if (finalists(top)) {
    for (Candidate* c : top) store(*c, problem_id);
  }
  recover_device(list);

  record_winner(problem_id, list, outcome);
  for (Candidate& c : list) c.instance.reset();
  inputs_.clear();
  progress_.end_problem(describe_winner(outcome));
  return outcome;
}

void Session::record_winner(int64_t problem_id, const std::vector<Candidate>& list,
                            ProblemOutcome& outcome) {
  // The winner as the database sees it (a resumed run's earlier results count too).
  for (const db::BestRow& row : store_.best(device_id_)) {
    if (row.problem_id != problem_id) continue;
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
    // The runtime hands the winner's SPIR-V to engines: store it, for winners only, which
    // keeps the database small.
    if (options_.store_spirv && family != nullptr) {
      const kernels::ShaderSpec spec = family->shader(knobs);
      const auto spirv = compiler_.compile(spec.file, spec.defines, *outcome.winner_key);
      store_.upsert_kernel(kernel_record(*family, knobs, spirv.get()), db::OnConflict::keep);
    }
  }
}

bool Session::finalists(const std::vector<Candidate*>& finalists) {
  // Interleaved rounds: each finalist gets one sample per round, so drift in clocks or
  // temperature hits all of them alike.
  constexpr int kRounds = 7;
  std::map<Candidate*, std::pair<uint32_t, std::vector<double>>> samples;
  try {
    DispatchTimer& timer = *timer_;
    for (Candidate* c : finalists) {
      auto record = [c](vk::CommandBuffer& cb, uint32_t i) {
        c->instance->record(cb, i % c->instance->weight_copies());
      };
      samples[c].first = timer.calibrate(record, options_.timing);
    }
    for (int round = 0; round < kRounds; ++round) {
      for (Candidate* c : finalists) {
        auto record = [c](vk::CommandBuffer& cb, uint32_t i) {
          c->instance->record(cb, i % c->instance->weight_copies());
        };
        auto& [dispatches, values] = samples[c];
        values.push_back(timer.sample(record, dispatches, options_.timing));
      }
    }
  } catch (const vk::Error& e) {
    if (!(e.device_lost() || e.result() == VK_TIMEOUT)) throw;
    device_failed(e.what());  // keep the earlier stages' numbers
    return false;
  }
  for (Candidate* c : finalists) c->stats = summarize(samples[c].second);
  return true;
}

}  // namespace vktune::tuner
