// The tuning run: the device, the run record, every problem's candidates, the compile stage and
// the budget; each problem then goes through the stages in session_problem.cpp.
#include "tuner/session.h"

#include <unistd.h>

#include <algorithm>
#include <functional>
#include <map>
#include <numeric>

#include "kernels/vk/compiler_probe.h"
#include "kernels/op.h"
#include "kernels/problem_limits.h"
#include "kernels/vk/error.h"
#include "tuner/bandwidth.h"
#include "tuner/batch_timer.h"
#include "tuner/clock_probe.h"
#include "tuner/pipeline_pool.h"
#include "tuner/problem_state.h"
#include "tuner/records.h"
#include "tuner/search.h"
#include "tuner/tuning_cost.h"

namespace vktune::tuner {
namespace {

// Cold mode rotates weight copies until they total this much: four times the largest
// last-level cache we tune on (the H100's 50 MB L2), so every dispatch reads from memory.
constexpr uint64_t kColdWorkingSetBytes = 256ull << 20;
constexpr uint32_t kMaxWeightCopies = 32;

void append_winners(const db::Store& store, int64_t device_id,
                    std::vector<std::pair<db::Problem, std::string>>& winners) {
  std::map<int64_t, db::Problem> problems;
  for (db::Problem& p : store.problems()) problems.emplace(p.id, std::move(p));
  std::map<int64_t, std::string> keys;
  for (db::KernelRecord& k : store.kernels()) keys.emplace(k.id, std::move(k.variant_key));
  for (const db::BestRow& best : store.best(device_id)) {
    winners.emplace_back(problems.at(best.problem_id), keys.at(best.kernel_id));
  }
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
      progress_(progress),
      writer_(store),
      spirv_cache_(options_.spirv_cache ? std::optional<SpirvDiskCache>(std::in_place,
                                                                        *options_.spirv_cache)
                                        : std::nullopt),
      compiler_(TargetEnv::vulkan_1_2, spirv_cache_ ? &*spirv_cache_ : nullptr) {
  if (options_.families.empty()) {
    options_.families.assign(kernels::families().begin(), kernels::families().end());
  }
  StageTimer t(profile_, Stage::device);
  open_device();
  // A CPU device has no clocks to ramp up: the GPU warm-up would only cost time there.
  if (device_->info().type == vk::DeviceType::cpu) options_.timing.max_warmup_ns = 0;
  options_.timing.stop = options_.stop;  // a stop ends a measurement between its submissions
}

Session::~Session() = default;

void Session::open_device() {
  end_pool();  // the pool, the timer, the probe and the pipelines belong to the old device
  timer_.reset();
  probe_.reset();
  pipelines_.reset();
  driver_cache_.reset();
  device_.reset();
  device_ = std::make_unique<vk::Device>(vk::Device::create(instance_, device_index_));
  if (options_.pipeline_cache) {
    std::string warning;
    driver_cache_ = vk::PipelineCacheFile::open(*device_, *options_.pipeline_cache, &warning);
    if (!warning.empty()) progress_.note("warning: " + warning);
  }
  pipelines_ = std::make_unique<kernels::PipelineCache>(driver_cache_ ? driver_cache_->get()
                                                                      : VK_NULL_HANDLE);
  // A GPU's clock follows its load: the timer brings it up when the GPU idled. A CPU device
  // has no clock to ramp up.
  if (device_->info().type != vk::DeviceType::cpu) {
    probe_ = std::make_unique<ClockProbe>(*device_, compiler_);
  }
  timer_ = std::make_unique<BatchTimer>(*device_, probe_.get(), &profile_);
}

void Session::device_failed(const std::string& why) {
  if (lost_reason_.empty()) lost_reason_ = why;
}

bool Session::recover_device(std::vector<Candidate>& list) {
  if (lost_reason_.empty()) return false;
  // A submission that timed out may still be running and reading what it was given: let it
  // finish first (a lost device has nothing running). Then every instance and shared buffer
  // belongs to the old device: they go before it.
  try {
    device_->wait_idle();
  } catch (const vk::Error&) {
  }
  for (Candidate& c : list) c.instance.reset();
  if (shared_) shared_->release_device();
  progress_.note("device: " + lost_reason_ + "; re-creating it and carrying on");
  lost_reason_.clear();
  open_device();
  if (!pool_order_.empty()) start_pool(problem_index_);
  return true;
}

int64_t Session::start_run() {
  if (options_.resume) {
    // The latest unfinished run with results on this device, of this run's problems only,
    // continues: an unfinished run of another device, another problem list or another worker's
    // share of the problems (`tune --devices` on identical devices) is left to its own resume.
    // A run without a result has nothing to continue, and may be a run another process has just
    // begun.
    std::map<int64_t, db::Problem> known;
    for (db::Problem& p : store_.problems()) known.emplace(p.id, std::move(p));
    std::vector<db::Problem> mine;
    for (const kernels::Problem& p : options_.problems) mine.push_back(problem_record(p));
    const auto of_this_run = [&](const db::Measurement& m) {
      const auto found = known.find(m.problem_id);  // absent: added since, by another process
      if (m.device_id != device_id_ || found == known.end()) return false;
      db::Problem p = found->second;
      p.id = 0;
      return std::find(mine.begin(), mine.end(), p) != mine.end();
    };
    const auto runs = store_.runs();
    for (auto it = runs.rbegin(); it != runs.rend(); ++it) {
      if (it->ended_at) continue;
      db::MeasurementFilter filter;
      filter.run_id = it->id;
      const auto ms = store_.measurements(filter);
      if (!ms.empty() && std::all_of(ms.begin(), ms.end(), of_this_run)) {
        progress_.note("resuming run " + std::to_string(it->id) + " (started " + it->started_at +
                       ", " + std::to_string(ms.size()) + " results stored)");
        return it->id;
      }
    }
    progress_.note("nothing to resume: starting a new run");
  }
  db::RunRecord run;
  run.strategy = strategy_name(options_.strategy);
  run.tool_version = VKTUNE_VERSION;
  run.host = host_name();
  run.cache_mode = options_.cache == CacheMode::cold ? "cold" : "hot";
  return store_.begin_run(run);
}

void Session::read_tuned_winners() {
  // The winners before this run, read once: the warm start of every problem.
  append_winners(store_, device_id_, tuned_winners_);
  if (train_store_ != nullptr) {
    // Matched by name, as the model's training data is (tuner/cost_model.h).
    for (const db::DeviceRecord& d : train_store_->devices()) {
      if (d.name == train_device()) append_winners(*train_store_, d.id, tuned_winners_);
    }
  }
}

void Session::start_pool(size_t from_problem) {
  std::vector<PipelinePool::Variant> order;
  for (size_t i = from_problem; i < pool_order_.size(); ++i) {
    order.insert(order.end(), pool_order_[i].begin(), pool_order_[i].end());
  }
  pool_ = std::make_unique<PipelinePool>(*device_, compiler_, *pipelines_, std::move(order),
                                         std::max(1u, std::thread::hardware_concurrency()),
                                         options_.stop);
  progress_.note("making " + std::to_string(pool_->size()) +
                 " pipelines in the background while measuring");
}

void Session::end_pool() {
  if (!pool_) return;
  profile_.add_pool(pool_->size(), pool_->busy(), pool_->cpu());
  pool_.reset();
}

std::string Session::compile_counts() const {
  const std::string driver_cache =
      driver_cache_ ? " (" + std::to_string(pipelines_->driver_cache_hits()) + " found in " +
                          driver_cache_->file().string() + ", " +
                          std::to_string(driver_cache_->loaded_bytes()) + " bytes loaded)"
                    : "";
  return std::to_string(pipelines_->size()) + " pipelines" + driver_cache + " from " +
         std::to_string(compiler_.cache_size()) + " SPIR-V modules (" +
         std::to_string(compiler_.compiled()) + " compiled, " +
         (spirv_cache_ ? std::to_string(compiler_.disk_hits()) + " from " +
                             spirv_cache_->dir().string()
                       : std::string("no SPIR-V disk cache")) +
         ", " + std::to_string(compiler_.prebuilt()) + " prebuilt)";
}

bool Session::order_problems() {
  // The model strategy measures a small part of the variants: theirs are compiled on demand, as
  // their instances are made (on every core too, tuner/session_stages.cpp). So are a budgeted
  // run's: its budget then covers compiling, each problem's share included, and a run that
  // compiles past it stores what it measured (986 pipelines compiled up front took 2 min 26 s
  // of a 20 s budget on lavapipe, and the run stored nothing). Any other run makes every
  // pipeline in the background pool, the problems with the longest dispatch first (predicted as
  // tuning_cost.h predicts a variant's measuring time): a variant of theirs takes longest to
  // measure, so the pool gets furthest ahead (one pipeline serves every problem, so the first
  // problem waits for most of its own, the later ones for few).
  if (options_.strategy == Strategy::model || options_.budget) return false;
  std::ranges::stable_sort(options_.problems, std::greater<>{}, nominal_dispatch_us);
  return true;
}

std::vector<std::vector<Candidate>> Session::plan(bool ahead, std::vector<int64_t>& problem_ids,
                                                  std::vector<ProblemOutcome>& outcomes) {
  StageTimer t(profile_, Stage::plan);
  read_tuned_winners();
  if (options_.strategy == Strategy::model) train_model();
  if (options_.prior && train_store_ != nullptr) {
    prior_.emplace(read_observations(*train_store_, train_device()), *options_.prior);
    progress_.note("prior: " + std::to_string(prior_->near_best()) + " variants within " +
                   std::to_string(static_cast<int>(*options_.prior * 100 + 0.5)) +
                   "% of a problem's best on " + train_device() +
                   "; the others of its families are left unmeasured");
  }
  // The problems this run finished before (a resumed run): they have a coverage record.
  for (const db::Coverage& c : store_.coverage()) {
    if (c.run_id == run_id_ && c.device_id == device_id_) finished_problems_.insert(c.problem_id);
  }
  // Every problem's candidates first (one transaction), so the pool sees the run.
  std::vector<std::vector<Candidate>> lists;
  {
    db::Transaction transaction = store_.transaction();
    for (size_t i = 0; i < options_.problems.size(); ++i) {
      outcomes[i].problem = options_.problems[i];
      problem_ids.push_back(store_.upsert_problem(problem_record(options_.problems[i])));
      lists.push_back(candidates(options_.problems[i], problem_ids.back(), outcomes[i]));
    }
    transaction.commit();
  }
  if (ahead) {
    for (const std::vector<Candidate>& list : lists) {
      std::vector<PipelinePool::Variant>& variants = pool_order_.emplace_back();
      for (const Candidate& c : list) variants.push_back({c.family, c.knobs});
    }
    start_pool(0);
  }
  return lists;
}

TuneResult Session::run() {
  run_start_ = std::chrono::steady_clock::now();
  TuneResult result;
  const bool ahead = order_problems();
  kernels::require_fit(options_.problems, device_->info());  // before anything is written
  if (options_.train_store.valid()) {
    StageTimer t(profile_, Stage::plan);        // what reading it took beyond opening the device
    train_store_ = options_.train_store.get();  // a bad one throws here, before any write
  }
  device_id_ = store_.upsert_device(device_record(device_->info()));
  run_id_ = start_run();
  // Claimed before the GPU is used: a refused resume leaves the running tune's timings alone.
  if (!options_.claim_path.empty()) run_lock_ = RunLock::acquire(options_.claim_path, run_id_);
  const Bandwidth bandwidth = [&] {
    StageTimer t(profile_, Stage::device);  // the probe's calibration and the copy loop
    return measure_copy_bandwidth(*device_, compiler_, probe_.get());
  }();
  store_.raise_copy_bandwidth(device_id_, bandwidth.gbps);
  progress_.note("device " + device_->info().name + ": copy bandwidth " +
                 std::to_string(static_cast<int>(bandwidth.gbps)) + " GB/s");
  result.run_id = run_id_;
  result.device_id = device_id_;
  result.copy_gbps = bandwidth.gbps;

  std::vector<int64_t> problem_ids;
  std::vector<ProblemOutcome> outcomes(options_.problems.size());
  std::vector<std::vector<Candidate>> lists = plan(ahead, problem_ids, outcomes);
  if (options_.budget && std::chrono::steady_clock::now() - run_start_ >= *options_.budget) {
    throw std::runtime_error("the budget of " + format_seconds(options_.budget->count()) +
                             " ran out before a single variant was measured (the device and the "
                             "run's plan took " +
                             format_seconds(std::chrono::duration<double>(
                                                std::chrono::steady_clock::now() - run_start_)
                                                .count()) +
                             "); give a larger --budget");
  }
  // Each problem's predicted cost of measuring its variants (tuner/tuning_cost.h).
  std::vector<double> costs;
  for (size_t i = 0; i < lists.size(); ++i) {
    costs.push_back(tuning_cost(options_.problems[i], lists[i].size()));
  }
  double cost_left = std::accumulate(costs.begin(), costs.end(), 0.0);
  using Clock = std::chrono::steady_clock;
  const Clock::time_point run_end =
      options_.budget ? run_start_ + std::chrono::duration_cast<Clock::duration>(*options_.budget)
                      : Clock::time_point::max();
  for (size_t i = 0; i < options_.problems.size(); ++i) {
    if (options_.budget) {
      // A share of what is left in proportion to the problem's predicted cost.
      const Clock::time_point now = Clock::now();
      const auto share = (run_end - now) * (cost_left <= 0 ? 0.0 : costs[i] / cost_left);
      cost_left -= costs[i];
      budget_.emplace(now, std::chrono::duration_cast<Clock::duration>(share), run_end);
    }
    problem_index_ = i;
    try {
      result.problems.push_back(
          tune_problem(i, problem_ids[i], std::move(lists[i]), std::move(outcomes[i])));
    } catch (const TimingStopped&) {
      stop_if_asked();  // commits what the problem's finished chunks and stages stored, and throws
      throw;
    }
    // The problems after it protect this winner in their halving (nearest_winners).
    if (const std::optional<std::string>& key = result.problems.back().winner_key) {
      tuned_winners_.emplace_back(problem_record(options_.problems[i]), *key);
    }
  }
  end_pool();
  {
    StageTimer t(profile_, Stage::finish);
    if (options_.store_spirv) store_answer_spirv(problem_ids);
    progress_.note(compile_counts());
    if (driver_cache_) {
      if (const std::string why = driver_cache_->save(); !why.empty()) {
        progress_.note("warning: the driver's pipeline cache was not saved: " + why);
      }
    }
    store_.end_run(run_id_);
  }
  result.stored = stored_;
  result.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - created_).count();
  result.profile = profile_;
  return result;
}

bool Session::out_of_time() const {
  return budget_ && budget_->expired(std::chrono::steady_clock::now());
}

uint32_t Session::weight_copies(const kernels::Problem& problem) const {
  // What a dispatch streams once: q4gsw's weights, sdpa's KV cache (decode reads all of it).
  const bool streams = kernels::streams_weights(kernels::op_descriptor(problem.op));
  if (options_.cache == CacheMode::hot || !streams) return 1;
  const kernels::BindingSizes sizes = kernels::binding_sizes(problem, kernels::Layout::raw);
  const uint64_t per_copy =
      std::max<uint64_t>(1, sizes.weight + sizes.scales + sizes.keys + sizes.values);
  return static_cast<uint32_t>(
      std::clamp<uint64_t>(kColdWorkingSetBytes / per_copy, 1, kMaxWeightCopies));
}

std::vector<Candidate> Session::candidates(const kernels::Problem& problem, int64_t problem_id,
                                           ProblemOutcome& outcome) {
  // A resumed run's unfinished problem: its stored first-stage timings stand, and those
  // variants rejoin the later stages (halving, finalists) beside the ones still to measure. A
  // problem it finished has no candidates: what its search left unmeasured (the families
  // halving's screen dropped, the variants the model did not pick) stays so.
  const bool finished = options_.resume && finished_problems_.count(problem_id);
  std::map<int64_t, db::Measurement> earlier;
  if (options_.resume && !finished) {
    db::MeasurementFilter filter;
    filter.run_id = run_id_;
    filter.device_id = device_id_;
    filter.problem_id = problem_id;
    filter.status = db::Status::ok;
    for (db::Measurement& m : store_.measurements(filter)) {
      if (m.median_ns) earlier.emplace(m.kernel_id, std::move(m));
    }
  }
  // Every family of the op counts towards the problem's space (the coverage record's legal);
  // the run's own families (the first `own`), less what the filter drops, give its candidates.
  std::vector<const kernels::Family*> families = options_.families;
  const size_t own = families.size();
  for (const kernels::Family* f : kernels::families()) {
    if (std::find(families.begin(), families.begin() + own, f) == families.begin() + own) {
      families.push_back(f);
    }
  }
  // The baselines and the tuned neighbours' winners: measured first (below), and never dropped
  // by the prior's narrowing (tuner/kin_prior.h).
  const std::string fixed = fixed_routing_key(problem);
  const std::map<std::string, double> neighbours = neighbour_winners(problem);
  std::vector<Candidate> list;
  for (size_t i = 0; i < families.size(); ++i) {
    const kernels::Family* family = families[i];
    if (family->op() != problem.op) continue;
    for (kernels::Knobs& knobs : family->all_variants()) {
      if (!family->legality(knobs, problem, device_->info(), linked_compiler_support())) continue;
      ++outcome.space;
      if (i >= own) continue;
      std::string key = family->key(knobs);
      if (options_.variant_filter && !options_.variant_filter(problem, key)) continue;
      ++outcome.legal;
      Candidate c;
      c.family = family;
      c.key = std::move(key);
      c.knobs = std::move(knobs);
      if (prior_ && !prior_->keeps(*family, c.knobs, c.key) && !is_reference(c, fixed) &&
          !neighbours.count(c.key)) {
        continue;
      }
      c.kernel_id = store_.upsert_kernel(kernel_record(*family, c.knobs, nullptr),
                                         db::OnConflict::keep);
      const bool measured = (options_.resume || options_.fill) &&
                            store_.has_measurement(device_id_, problem_id, c.kernel_id);
      if (measured) ++outcome.resumed;
      if (finished) continue;
      if (measured) {
        const auto it = earlier.find(c.kernel_id);
        if (it == earlier.end()) continue;
        const db::Measurement& m = it->second;
        c.stats = SampleStats{m.n, *m.median_ns, m.min_ns.value_or(*m.median_ns),
                              m.p10_ns.value_or(*m.median_ns), m.p90_ns.value_or(*m.median_ns)};
        c.max_error = m.max_error.value_or(0);
        c.resumed = true;
      }
      list.push_back(std::move(c));
    }
  }
  // Winners of tuned neighbours first (with a budget they are the likeliest winners here
  // too, and halving keeps them in the race), then the baselines, then every family in turn.
  order_candidates(list, neighbours,
                   [&fixed](const Candidate& c) { return is_reference(c, fixed); });
  return list;
}

std::map<std::string, double> Session::neighbour_winners(const kernels::Problem& problem) const {
  std::map<std::string, double> rank;
  for (const auto& [p, key] : tuned_winners_) {
    if (!same_kind(p, problem)) continue;  // another dtype's keys never name a candidate here
    const double d = log_distance(problem, p);
    auto [it, inserted] = rank.emplace(key, d);
    if (!inserted) it->second = std::min(it->second, d);
  }
  return rank;
}

}  // namespace vktune::tuner
