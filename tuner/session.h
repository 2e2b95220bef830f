// A tuning run on one device: for every problem, every legal variant is checked against the
// CPU reference, timed, and stored as soon as it is known, so a killed run resumes where it
// stopped.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "db/store.h"
#include "kernels/kernel_instance.h"
#include "kernels/shader_compiler.h"
#include "kernels/vk/device.h"
#include "kernels/vk/instance.h"
#include "tuner/candidate.h"
#include "tuner/gate.h"
#include "tuner/options.h"
#include "tuner/progress.h"

namespace vktune::tuner {

class ClockProbe;

// Thrown by the abort_after_results test hook.
class TuneAborted : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct ProblemOutcome {
  kernels::Problem problem;
  size_t legal = 0;        // variants legal for the problem on this device
  size_t measured = 0;     // stored in this session, any status
  size_t resumed = 0;      // skipped: already stored by the run being resumed
  size_t failed = 0;       // stored with a status other than ok
  bool budget_cut = false; // the budget ran out before every variant was measured
  std::optional<std::string> winner_key;
  double winner_ns = 0;
};

struct TuneResult {
  int64_t run_id = 0;
  int64_t device_id = 0;
  double copy_gbps = 0;
  double seconds = 0;
  size_t stored = 0;  // results written in this session
  std::vector<ProblemOutcome> problems;
};

class Session {
 public:
  // `instance` and `store` must outlive the session. Throws vk::Error when the device cannot
  // be created.
  Session(const vk::Instance& instance, size_t device_index, db::Store& store,
          TuneOptions options, Progress& progress);
  ~Session();

  TuneResult run();

 private:
  void open_device();
  // A lost or hung device is noted where it happens and re-created between candidates,
  // once every instance of the old one is gone.
  void device_failed(const std::string& why);
  void recover_device(std::vector<Candidate>& list);
  int64_t start_run();
  ProblemOutcome tune_problem(size_t index);
  std::vector<Candidate> candidates(const kernels::Problem& problem, int64_t problem_id,
                                    ProblemOutcome& outcome);
  void warm_start_order(const kernels::Problem& problem, std::vector<Candidate>& list) const;
  // Instance + correctness gate; false when the candidate failed (status set).
  bool prepare(Candidate& c, const kernels::Problem& problem, const kernels::ProblemData& data,
               const Gate& gate);
  // Times the candidate; false when it failed (status set).
  bool time(Candidate& c, const TimingOptions& timing);
  // Fills the outcome's winner from the database and stores the winner's SPIR-V.
  void record_winner(int64_t problem_id, const std::vector<Candidate>& list,
                     ProblemOutcome& outcome);
  // Re-measures `finalists` interleaved; false when the device failed meanwhile.
  bool finalists(const std::vector<Candidate*>& finalists);
  void store(const Candidate& c, int64_t problem_id);
  void fail(Candidate& c, db::Status status, const std::string& message);
  uint32_t weight_copies(const kernels::Problem& problem) const;
  // The problem's inputs in `layout`, uploaded on first use and shared by its variants.
  std::shared_ptr<const kernels::ProblemBuffers> inputs(const kernels::Problem& problem,
                                                        const kernels::ProblemData& data,
                                                        kernels::Layout layout);
  void precompile(const std::vector<Candidate>& list);
  bool out_of_time() const;

  const vk::Instance& instance_;
  size_t device_index_;
  db::Store& store_;
  TuneOptions options_;
  Progress& progress_;
  std::unique_ptr<vk::Device> device_;
  std::unique_ptr<kernels::PipelineCache> pipelines_;
  std::unique_ptr<ClockProbe> probe_;  // GPUs only (tuner/clock_probe.h)
  std::unique_ptr<DispatchTimer> timer_;
  std::map<kernels::Layout, std::shared_ptr<const kernels::ProblemBuffers>> inputs_;
  ShaderCompiler compiler_;
  int64_t run_id_ = 0, device_id_ = 0;
  size_t stored_ = 0;
  std::string lost_reason_;  // non-empty: the device must be re-created
  std::chrono::steady_clock::time_point run_start_, problem_deadline_;
  bool has_deadline_ = false;
};

}  // namespace vktune::tuner
