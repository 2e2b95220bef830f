// Progress of a tuning run: one redrawn line per problem on a terminal, plain lines (one per
// stage and per problem) otherwise, so logs stay readable.
#pragma once

#include <chrono>
#include <cstdio>
#include <optional>
#include <string>

namespace vktune::tuner {

class Progress {
 public:
  // `out` is a terminal when isatty says so, unless `force_plain`.
  explicit Progress(std::FILE* out, bool force_plain = false);

  // A problem starts: its position, label and the number of variants to measure.
  void begin_problem(size_t index, size_t count, const std::string& label, size_t variants);
  // After each variant: how many are done and the best so far (empty: none correct yet).
  void variant_done(size_t done, const std::string& best_key, std::optional<double> best_ns);
  // A line that does not belong to the live line (a device loss, a stage change).
  void note(const std::string& text);
  // The problem's closing line. A `winner_key` other than the live line's best is said to
  // come from the finalists' re-measurement, so the two lines do not seem to disagree.
  void end_problem(const std::string& summary, const std::optional<std::string>& winner_key = {});

 private:
  void draw(bool final_line);

  std::FILE* out_;
  bool tty_;
  size_t index_ = 0, count_ = 0, variants_ = 0, done_ = 0;
  std::string label_, best_key_;
  std::optional<double> best_ns_;
  std::chrono::steady_clock::time_point problem_start_, last_plain_;
};

// "1.23 s", "45 s", "3 min 20 s".
std::string format_seconds(double seconds);

}  // namespace vktune::tuner
