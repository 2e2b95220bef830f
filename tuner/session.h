// A tuning run on one device, as a pipeline of stages, one file each:
//   compile (tuner/pipeline_pool.h): every variant's pipeline of the run, once, on every core,
//                                    in the background while the problems before it are measured;
//   gate    (tuner/gate_stage.h):    a batch of variants checked against the CPU reference in
//                                    one submission;
//   time    (tuner/batch_timer.h):   the batch's samples in shared submissions, order shuffled;
//   decide  (tuner/search_strategy.h): which variants to measure next and when to stop
//                                    (exhaustive, halving, model: search.h, model_search.h);
//                                    the finalists re-measured;
//   store   (tuner/result_writer.h): results committed in batches, at most a second apart.
// The session holds the device and walks each problem's variants through the stages in chunks
// (session.cpp: the run; session_problem.cpp: one problem; session_stages.cpp: the measuring
// steps), so a killed run resumes where it
// stopped and a budget stops between chunks.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "db/store.h"
#include "kernels/vk/kernel_instance.h"
#include "kernels/vk/shader_compiler.h"
#include "kernels/vk/device.h"
#include "kernels/vk/error.h"
#include "kernels/vk/instance.h"
#include "kernels/vk/pipeline_cache_file.h"
#include "tuner/candidate.h"
#include "tuner/cost_model.h"
#include "tuner/gate.h"
#include "tuner/kin_prior.h"
#include "tuner/model_search.h"
#include "tuner/unseen_knob_values.h"
#include "tuner/options.h"
#include "tuner/pipeline_pool.h"
#include "tuner/problem_budget.h"
#include "tuner/profile.h"
#include "tuner/progress.h"
#include "tuner/result_writer.h"
#include "tuner/run_lock.h"

namespace vktune::tuner {

class BatchTimer;
class ClockProbe;
struct GateOutcome;
struct ProblemState;
class SearchStrategy;

// Thrown by the abort_after_results test hook.
class TuneAborted : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Thrown when TuneOptions::stop asked the run to stop; what it measured is committed and the
// run is left unfinished, for --resume.
class TuneInterrupted : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct ProblemOutcome {
  kernels::Problem problem;
  size_t legal = 0;        // variants legal for the problem on this device that this run may measure
  // Every legal variant of every family of the problem's op on this device, whatever --families
  // or a filter (the bench's) kept: the coverage record's `legal`, so a run that measured part of
  // the space never reads as complete.
  size_t space = 0;
  size_t measured = 0;     // stored by this process's run, any status
  size_t resumed = 0;      // skipped: already stored by the run being resumed
  size_t failed = 0;       // stored with a status other than ok
  size_t rechecked = 0;    // stage-one variants sampled a second time (search.h, recheck)
  size_t recovered = 0;    // ... whose second sample put them within kAdvanceWithin of the best
  bool budget_cut = false; // the budget ran out before every variant was measured
  std::optional<std::string> winner_key;
  double winner_ns = 0;
};

struct TuneResult {
  int64_t run_id = 0;
  int64_t device_id = 0;
  double copy_gbps = 0;
  double seconds = 0;  // from the session's creation (the device opened) to the run's end
  size_t stored = 0;  // results written by this process's run
  std::vector<ProblemOutcome> problems;
  Profile profile;    // where the wall time went
};

class Session {
 public:
  // `instance` and `store` must outlive the session. Throws vk::Error when the device cannot
  // be created.
  Session(const vk::Instance& instance, size_t device_index, db::Store& store,
          TuneOptions options, Progress& progress);
  ~Session();

  // Throws std::runtime_error when a budget was given and ran out before the first variant was
  // measured (while compiling). Past that, every problem measures at least its first chunk.
  TuneResult run();

 private:

  void open_device();
  // A lost or hung device is noted where it happens and re-created between chunks, once every
  // instance of the old one is gone.
  void device_failed(const std::string& why);
  // True when the device was re-created (every instance of `list` is gone then).
  bool recover_device(std::vector<Candidate>& list);
  int64_t start_run();
  // Puts options_.problems in the order the run tunes them; true when the run has a pool.
  bool order_problems();
  // Stage::plan: the winners read, the model trained, every problem's candidates with their
  // database rows (problem_ids and outcomes filled in the same order), and the pool started
  // when `ahead`.
  std::vector<std::vector<Candidate>> plan(bool ahead, std::vector<int64_t>& problem_ids,
                                           std::vector<ProblemOutcome>& outcomes);
  // The winners on this device before the run (tuned_winners_), the training stores' too.
  void read_tuned_winners();
  // The background pool (tuner/pipeline_pool.h) over pool_order_'s problems from `from_problem`
  // on, on every core.
  void start_pool(size_t from_problem);
  // Adds the pool's figures to the profile and stops it (what it has not begun is dropped).
  void end_pool();
  // "N pipelines from M SPIR-V modules (C compiled, D from <disk cache>)": what the run has
  // made so far. A module serves every variant that differs only in specialised knobs.
  std::string compile_counts() const;
  std::vector<Candidate> candidates(const kernels::Problem& problem, int64_t problem_id,
                                    ProblemOutcome& outcome);
  // Variant key -> log-distance of the nearest tuned problem of the same kind (same_kind) it won.
  std::map<std::string, double> neighbour_winners(const kernels::Problem& problem) const;
  // Strategy::model (session_model.cpp): learns from the stores' measurements on this device
  // (in the training stores: on train_device()).
  void train_model();
  // The device the training stores are read for: options_.train_device, else this one's name.
  const std::string& train_device() const {
    return options_.train_device.empty() ? device_->info().name : options_.train_device;
  }
  // The search over `list` when the model ranks the problem's op; nullopt: sweep it instead.
  std::optional<ModelSearch> model_search(const kernels::Problem& problem,
                                          const std::vector<Candidate>& list);
  // Under Strategy::model, adds the problem's timings to what the model learns from and
  // retrains when that grew enough; nothing under the other strategies.
  void learn(const kernels::Problem& problem, const std::vector<Candidate>& list);
  // The problem's search over `list` (`legal` variants), as options_.strategy names it.
  std::unique_ptr<SearchStrategy> search_strategy(const kernels::Problem& problem,
                                                  const std::vector<Candidate>& list,
                                                  size_t legal);
  ProblemOutcome tune_problem(size_t index, int64_t problem_id, std::vector<Candidate> list,
                              ProblemOutcome outcome);
  // The problem's shared buffers and random inputs (shared_), sized for every candidate.
  void set_up_problem(const kernels::Problem& problem, const std::vector<Candidate>& list);
  // Variants per stage-one chunk after `done` were measured: kChunk, or what the budget allows.
  size_t chunk_size(size_t done) const;
  // Stage one of what `strategy` picks, chunk by chunk, results stored; returns the timed
  // candidates of `list` (the pool the later stages narrow).
  std::vector<Candidate*> first_stage(std::vector<Candidate>& list, SearchStrategy& strategy,
                                      ProblemOutcome& outcome);
  // The strategy's later stages over `pool` while time is left; each narrowing's size is
  // appended to `stages`.
  void later_stages(std::vector<Candidate>& list, SearchStrategy& strategy,
                    std::vector<Candidate*>& pool, ProblemOutcome& outcome,
                    std::vector<uint32_t>& stages);
  // The finalists of `pool` and the baselines re-measured in interleaved rounds and stored;
  // returns how many were.
  uint32_t remeasure_finalists(std::vector<Candidate>& list, const std::vector<Candidate*>& pool);
  // Stage one for `chunk`, a chunk whose batch failed on the device tried again variant by
  // variant; the device re-created where it failed.
  void measure_chunk(std::vector<Candidate>& list, std::span<Candidate* const> chunk,
                     const TimingOptions& timing);
  // Every pipeline of `chunk`, waited for where the pool is making it and made on every core
  // where nothing is (Stage::compile: the time the loop waited for pipelines). Throws
  // TuneInterrupted when TuneOptions::stop reads true, the pipelines not begun skipped.
  void await_pipelines(std::span<Candidate* const> chunk);
  // Stage one for `chunk`: instances, gate, timing. False when the device failed and the
  // chunk's unfinished candidates must be tried again (each on its own, to find the one that
  // failed).
  bool stage_one(std::span<Candidate* const> chunk, const TimingOptions& timing);
  // The gate over `chunk`'s instances in batches; what passes and still needs a timing is
  // appended to `passed`, its gate dispatch's time to `estimate`. False when the device failed.
  bool gate(std::span<Candidate* const> chunk, const TimingOptions& timing,
            std::vector<Candidate*>& passed, std::vector<double>& estimate);
  // The candidate's gate outcome: failed (status set), timed by it (`one_sample`: the stage's
  // timing when one sample is all it takes), or true: to be timed.
  bool judge(Candidate& c, const GateOutcome& outcome, const TimingOptions* one_sample);
  // Re-times `list` (instances re-created where a device loss took them); false when the device
  // failed meanwhile (the earlier numbers stand).
  bool retime(const std::vector<Candidate*>& list, const TimingOptions& timing);
  // Creates the shared buffers the candidates need that do not exist yet (after a device loss,
  // or for a layout not seen before); false when the device failed.
  bool prepare_shared(std::span<Candidate* const> candidates);
  // Creates the candidate's instance over the shared buffers; false when it failed (status set).
  bool make_instance(Candidate& c);
  void fail(Candidate& c, db::Status status, const std::string& message);
  void fail_on_device(Candidate& c, const vk::Error& e);
  void store(const Candidate& c);
  void flush();
  // Commits what is queued and throws TuneInterrupted when TuneOptions::stop reads true.
  void stop_if_asked();
  // Fills the outcome's winner from the database and stores the winner's SPIR-V.
  void record_winner(int64_t problem_id, const std::vector<Candidate>& list,
                     ProblemOutcome& outcome);
  // Stores the SPIR-V of every answer a runtime can give for these problems from this database
  // (db::answer_kernels: the winners and the head of each ranked list).
  void store_answer_spirv(std::span<const int64_t> problem_ids);
  uint32_t weight_copies(const kernels::Problem& problem) const;
  bool out_of_time() const;

  const vk::Instance& instance_;
  size_t device_index_;
  db::Store& store_;
  TuneOptions options_;
  Progress& progress_;
  Profile profile_;
  ResultWriter writer_;
  std::unique_ptr<vk::Device> device_;
  std::optional<vk::PipelineCacheFile> driver_cache_;  // TuneOptions::pipeline_cache, of device_
  std::unique_ptr<kernels::PipelineCache> pipelines_;
  std::unique_ptr<ClockProbe> probe_;  // GPUs only (tuner/clock_probe.h)
  std::unique_ptr<BatchTimer> timer_;
  std::unique_ptr<ProblemState> shared_;  // of the problem being tuned
  // The winners on this device when the run started, with their problems: the database's and
  // the training database's (--train-db), by variant key since the two number kernels apart;
  // then each problem's winner as this run finishes it.
  std::vector<std::pair<db::Problem, std::string>> tuned_winners_;
  std::set<int64_t> finished_problems_;
  std::vector<Observation> observations_;  // what the model learns from (Strategy::model)
  SeenKnobValues seen_knobs_;              // ... and the knob values those hold
  std::optional<KinPrior> prior_;   // options_.prior's, from the training database
  const db::Store* train_store_ = nullptr;  // options_.train_store once read (run)
  std::optional<CostModel> model_;  // of a resumed run: those it has a coverage record of
  std::optional<SpirvDiskCache> spirv_cache_;  // TuneOptions::spirv_cache; before compiler_
  ShaderCompiler compiler_;
  std::optional<RunLock> run_lock_;  // the claim on run_id_ (TuneOptions::claim_path)
  int64_t run_id_ = 0, device_id_ = 0, problem_id_ = 0;
  size_t stored_ = 0;
  std::string lost_reason_;  // non-empty: the device must be re-created
  // Opening the device on: TuneResult::seconds.
  const std::chrono::steady_clock::time_point created_ = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point run_start_;  // run() on: the budget's
  std::optional<ProblemBudget> budget_;  // the current problem's share of --budget
  // Each problem's variants, in the run's order of problems, for the pool; empty: no pool (the
  // model strategy and budgeted runs compile on demand).
  std::vector<std::vector<PipelinePool::Variant>> pool_order_;
  size_t problem_index_ = 0;  // into options_.problems: the problem being tuned
  std::unique_ptr<PipelinePool> pool_;  // last: it uses the device, the compiler and pipelines_
};

}  // namespace vktune::tuner
