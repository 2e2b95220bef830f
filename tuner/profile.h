// Where a tuning run's wall time goes, stage by stage (`vktune tune --profile`): the figure that
// says whether the GPU or the CPU side of the loop is the bottleneck.
#pragma once

#include <array>
#include <chrono>
#include <cstddef>
#include <string>

namespace vktune::tuner {

enum class Stage {
  compile,   // GLSL -> SPIR-V -> pipeline, on every core
  upload,    // a problem's inputs, in each weight layout and its cold-cache copies
  instance,  // descriptor sets and buffers of each variant
  gate,      // one dispatch each, read back, compared with the CPU reference
  warmup,    // bringing the GPU's clock up after it idled
  timing,    // timestamped samples (stage one, later stages, finalists)
  store,     // SQLite commits
};
inline constexpr size_t kStageCount = 7;
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

  // A table: per stage, seconds, share of `total`, milliseconds per variant; then "other", what
  // no stage claimed (reference computation, uploads, bookkeeping), and the total; then the
  // count of low-clock re-runs and of gate dispatches taken as samples, when there were any.
  std::string render(std::chrono::steady_clock::duration total, size_t variants) const;

 private:
  static size_t index(Stage stage) { return static_cast<size_t>(stage); }
  std::array<std::chrono::steady_clock::duration, kStageCount> spent_{};
  size_t low_clock_reruns_ = 0;
  size_t gate_samples_ = 0;
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
