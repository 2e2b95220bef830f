// Where a tuning run's wall time goes, stage by stage (`vktune tune --profile`): the figure that
// says whether the GPU or the CPU side of the loop is the bottleneck.
#pragma once

#include <array>
#include <chrono>
#include <cstddef>
#include <string>

namespace vktune::tuner {

enum class Stage {
  device,    // opening the device, its clock probe and the copy-bandwidth measurement
  plan,      // every problem's candidates and their database rows, the winners read, training
  compile,   // waiting for pipelines: the pool's not yet made (tuner/pipeline_pool.h) or the
             // loop's own (GLSL -> SPIR-V -> pipeline, on every core)
  setup,     // a problem's random inputs and their CPU reference
  upload,    // a problem's inputs, in each weight layout and its cold-cache copies
  instance,  // descriptor sets and buffers of each variant
  gate,      // one dispatch each, read back, compared with the CPU reference
  warmup,    // bringing the GPU's clock up after it idled
  timing,    // timestamped samples (stage one, later stages, finalists)
  store,     // SQLite commits
  finish,    // the answers' SPIR-V stored, the driver's pipeline cache saved
};
inline constexpr size_t kStageCount = 11;
const char* stage_name(Stage stage);

class Profile {
 public:
  void add(Stage stage, std::chrono::steady_clock::duration spent) { spent_[index(stage)] += spent; }
  std::chrono::steady_clock::duration spent(Stage stage) const { return spent_[index(stage)]; }
  // A timing submission run again because its own clock readings were low (BatchTimer).
  void count_low_clock_rerun() { ++low_clock_reruns_; }
  size_t low_clock_reruns() const { return low_clock_reruns_; }
  // A one-sample stage's sample taken from the variant's gate dispatch (tuner/session_problem.cpp).
  void count_gate_sample() { ++gate_samples_; }
  size_t gate_samples() const { return gate_samples_; }
  // A background pool's figures (tuner/pipeline_pool.h): its pipelines, its wall time, which
  // overlaps the stages (what the loop waited for it is Stage::compile), and the CPU time its
  // workers spent (the driver's compiler mostly): CPU over wall is how many cores compiled.
  void add_pool(size_t pipelines, std::chrono::steady_clock::duration busy,
                std::chrono::nanoseconds cpu) {
    pool_pipelines_ += pipelines;
    pool_busy_ += busy;
    pool_cpu_ += cpu;
  }
  size_t pool_pipelines() const { return pool_pipelines_; }
  std::chrono::steady_clock::duration pool_busy() const { return pool_busy_; }
  std::chrono::nanoseconds pool_cpu() const { return pool_cpu_; }

  // What was spent since `earlier`, a copy of this profile taken then: stages and pool.
  Profile since(const Profile& earlier) const;

  // A table: per stage, seconds, share of `total`, milliseconds per variant; then "other", what
  // no stage claimed (bookkeeping between stages), and the total; then the pool's figures and
  // the count of low-clock re-runs and of gate dispatches taken as samples, when there were any.
  std::string render(std::chrono::steady_clock::duration total, size_t variants) const;
  // One line of the stages that took a tenth of a second or more, largest first, then "other":
  // "gate 18.2 s, timing 7.4 s, ..., other 0.3 s (pool: 1382 pipelines in 21.2 s, CPU 240.3 s)".
  std::string brief(std::chrono::steady_clock::duration total) const;

 private:
  static size_t index(Stage stage) { return static_cast<size_t>(stage); }
  // Seconds of `total` no stage claimed.
  double unclaimed(std::chrono::steady_clock::duration total) const;
  std::array<std::chrono::steady_clock::duration, kStageCount> spent_{};
  size_t low_clock_reruns_ = 0;
  size_t gate_samples_ = 0;
  size_t pool_pipelines_ = 0;
  std::chrono::steady_clock::duration pool_busy_{};
  std::chrono::nanoseconds pool_cpu_{};
};

// Adds the time from construction to destruction to one stage of a profile.
class StageTimer {
 public:
  StageTimer(Profile& profile, Stage stage)
      : profile_(profile), stage_(stage), start_(std::chrono::steady_clock::now()) {}
  ~StageTimer() { profile_.add(stage_, std::chrono::steady_clock::now() - start_); }
  StageTimer(const StageTimer&) = delete;
  StageTimer& operator=(const StageTimer&) = delete;

 private:
  Profile& profile_;
  Stage stage_;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace vktune::tuner
