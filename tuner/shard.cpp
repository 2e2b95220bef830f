// parse_shard and shard_indices: the split every shard of a run computes alike.
#include "tuner/shard.h"

#include <algorithm>
#include <charconv>
#include <numeric>
#include <optional>
#include <stdexcept>

namespace vktune::tuner {
namespace {

// A whole number in [lo, hi] from `text`, or nullopt.
std::optional<uint32_t> parse_u32(std::string_view text, uint32_t lo, uint32_t hi) {
  uint32_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || v < lo || v > hi) {
    return std::nullopt;
  }
  return v;
}

constexpr uint32_t kMaxShards = 1u << 16;

uint32_t shard_count(std::string_view text, std::string_view what) {
  const auto n = parse_u32(text, 1, kMaxShards);
  if (!n) {
    throw std::invalid_argument(std::string(what) + " \"" + std::string(text) +
                                "\" is not a shard count from 1 to " + std::to_string(kMaxShards));
  }
  return *n;
}

// The value of `name`, which must be a whole number.
uint32_t env_number(const EnvLookup& env, const char* name, std::string_view needed_for) {
  const char* value = env(name);
  if (value == nullptr || *value == '\0') {
    throw std::invalid_argument(std::string(needed_for) + " reads " + name + ", which is not set");
  }
  const auto n = parse_u32(value, 0, UINT32_MAX - 1);
  if (!n) {
    throw std::invalid_argument(std::string(name) + "=\"" + value + "\" is not a whole number");
  }
  return *n;
}

Shard checked(uint32_t index, uint32_t count, std::string_view origin) {
  if (count == 0) throw std::invalid_argument(std::string(origin) + ": a split into 0 shards");
  if (index < 1 || index > count) {
    throw std::invalid_argument(std::string(origin) + ": shard " + std::to_string(index) + " of " +
                                std::to_string(count) + " does not exist (1 to " +
                                std::to_string(count) + ")");
  }
  return {index, count};
}

}  // namespace

Shard parse_shard(std::string_view text, const EnvLookup& env) {
  if (text == "auto") {
    const uint32_t id = env_number(env, "SLURM_ARRAY_TASK_ID", "--shard auto");
    const uint32_t min = env_number(env, "SLURM_ARRAY_TASK_MIN", "--shard auto");
    const uint32_t count = env_number(env, "SLURM_ARRAY_TASK_COUNT", "--shard auto");
    if (id < min) {
      throw std::invalid_argument("SLURM_ARRAY_TASK_ID " + std::to_string(id) +
                                  " is below SLURM_ARRAY_TASK_MIN " + std::to_string(min));
    }
    return checked(id - min + 1, count, "--shard auto (Slurm job array; give it a contiguous "
                                        "--array range)");
  }
  if (text.starts_with("auto/")) {
    const uint32_t count = shard_count(text.substr(5), "--shard auto/N's N");
    const uint32_t index = env_number(env, "JOB_COMPLETION_INDEX", "--shard auto/N");
    return checked(index + 1, count, "--shard auto/" + std::to_string(count) +
                                         " (Kubernetes Indexed Job, JOB_COMPLETION_INDEX " +
                                         std::to_string(index) + ")");
  }
  const size_t slash = text.find('/');
  const auto index = slash == std::string_view::npos ? std::nullopt
                                                     : parse_u32(text.substr(0, slash), 0, kMaxShards);
  if (!index) {
    throw std::invalid_argument("--shard \"" + std::string(text) +
                                "\" is not I/N (1 <= I <= N), auto (Slurm) or auto/N (Kubernetes)");
  }
  return checked(*index, shard_count(text.substr(slash + 1), "--shard's N"),
                 "--shard " + std::string(text));
}

std::string to_string(const Shard& shard) {
  return std::to_string(shard.index) + "/" + std::to_string(shard.count);
}

std::vector<size_t> shard_indices(std::span<const double> costs, const Shard& shard) {
  std::vector<size_t> order(costs.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return costs[a] > costs[b]; });
  std::vector<double> load(shard.count, 0.0);
  std::vector<size_t> mine;
  for (size_t i : order) {
    const size_t least = static_cast<size_t>(std::min_element(load.begin(), load.end()) - load.begin());
    load[least] += costs[i];
    if (least + 1 == shard.index) mine.push_back(i);
  }
  std::sort(mine.begin(), mine.end());
  return mine;
}

}  // namespace vktune::tuner
