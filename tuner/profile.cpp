// Profile: the per-stage table and its one-line brief.
#include "tuner/profile.h"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <utility>
#include <vector>

namespace vktune::tuner {
namespace {

using seconds = std::chrono::duration<double>;

std::string pool_text(size_t pipelines, std::chrono::steady_clock::duration busy,
                      std::chrono::nanoseconds cpu) {
  char text[96];
  std::snprintf(text, sizeof text, "pool: %zu pipelines in %.1f s, CPU %.1f s", pipelines,
                seconds(busy).count(), seconds(cpu).count());
  return text;
}

}  // namespace

const char* stage_name(Stage stage) {
  static constexpr std::array<const char*, kStageCount> names = {
      "device", "plan",   "compile", "setup", "upload", "instance",
      "gate",   "warm-up", "timing", "store", "finish"};
  return names[static_cast<size_t>(stage)];
}

Profile Profile::since(const Profile& earlier) const {
  Profile delta = *this;
  for (size_t i = 0; i < kStageCount; ++i) delta.spent_[i] -= earlier.spent_[i];
  delta.low_clock_reruns_ -= earlier.low_clock_reruns_;
  delta.gate_samples_ -= earlier.gate_samples_;
  delta.pool_pipelines_ -= earlier.pool_pipelines_;
  delta.pool_busy_ -= earlier.pool_busy_;
  delta.pool_cpu_ -= earlier.pool_cpu_;
  return delta;
}

double Profile::unclaimed(std::chrono::steady_clock::duration total) const {
  double claimed = 0;
  for (const auto& spent : spent_) claimed += seconds(spent).count();
  return std::max(0.0, seconds(total).count() - claimed);
}

std::string Profile::render(std::chrono::steady_clock::duration total, size_t variants) const {
  const double all = seconds(total).count();
  std::string text = "stage        seconds   share   ms/variant\n";
  char line[96];
  auto row = [&](const char* name, double s) {
    std::snprintf(line, sizeof line, "%-10s %9.3f  %5.1f%%  %10.3f\n", name, s,
                  all > 0 ? 100 * s / all : 0.0, variants > 0 ? 1e3 * s / variants : 0.0);
    text += line;
  };
  for (size_t i = 0; i < kStageCount; ++i) {
    row(stage_name(static_cast<Stage>(i)), seconds(spent_[i]).count());
  }
  row("other", unclaimed(total));
  row("total", all);
  if (pool_pipelines_ > 0) {
    text += pool_text(pool_pipelines_, pool_busy_, pool_cpu_) +
            ", beside the stages (compile: what the loop waited for it)\n";
  }
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

std::string Profile::brief(std::chrono::steady_clock::duration total) const {
  std::vector<std::pair<double, std::string>> parts;
  for (size_t i = 0; i < kStageCount; ++i) {
    const double s = seconds(spent_[i]).count();
    if (s >= 0.1) parts.emplace_back(s, stage_name(static_cast<Stage>(i)));
  }
  std::ranges::stable_sort(parts, std::greater<>{}, &std::pair<double, std::string>::first);
  parts.emplace_back(unclaimed(total), "other");
  std::string text;
  char item[64];
  for (const auto& [s, name] : parts) {
    std::snprintf(item, sizeof item, "%s%s %.1f s", text.empty() ? "" : ", ", name.c_str(), s);
    text += item;
  }
  if (pool_pipelines_ > 0) text += " (" + pool_text(pool_pipelines_, pool_busy_, pool_cpu_) + ")";
  return text;
}

}  // namespace vktune::tuner
