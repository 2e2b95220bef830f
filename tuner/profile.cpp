// Profile: the per-stage table.
#include "tuner/profile.h"

#include <algorithm>
#include <cstdio>

namespace vktune::tuner {

const char* stage_name(Stage stage) {
  static constexpr std::array<const char*, kStageCount> names = {
      "compile", "upload", "instance", "gate", "warm-up", "timing", "store"};
  return names[static_cast<size_t>(stage)];
}

std::string Profile::render(std::chrono::steady_clock::duration total, size_t variants) const {
  using seconds = std::chrono::duration<double>;
  const double all = seconds(total).count();
  double accounted = 0;
  std::string text = "stage        seconds   share   ms/variant\n";
  char line[96];
  auto row = [&](const char* name, double s) {
    std::snprintf(line, sizeof line, "%-10s %9.3f  %5.1f%%  %10.3f\n", name, s,
                  all > 0 ? 100 * s / all : 0.0, variants > 0 ? 1e3 * s / variants : 0.0);
    text += line;
  };
  for (size_t i = 0; i < kStageCount; ++i) {
    const double s = seconds(spent_[i]).count();
    accounted += s;
    row(stage_name(static_cast<Stage>(i)), s);
  }
  row("other", std::max(0.0, all - accounted));  // what no stage claimed
  row("total", all);
  if (low_clock_reruns_ > 0) {
    text += "timing submissions run again at a low clock: " + std::to_string(low_clock_reruns_) +
            "\n";
  }
  if (gate_samples_ > 0) {
    text += "first samples taken from the gate at the peak clock: " +
            std::to_string(gate_samples_) + "\n";
  }
  return text;
}

}  // namespace vktune::tuner
