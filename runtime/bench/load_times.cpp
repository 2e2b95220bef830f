// time_loads: wall time around each Snapshot::load.
#include "runtime/bench/load_times.h"

#include <algorithm>
#include <chrono>
#include <cstdio>

namespace vktune::runtime::bench {

std::optional<LoadTimes> time_loads(const std::string& path, int times) {
  LoadTimes out;
  for (int i = 0; i < std::max(times, 1); ++i) {
    std::string error;
    const auto start = std::chrono::steady_clock::now();
    out.snapshot = Snapshot::load(path, &error);
    out.ms.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
    if (!out.snapshot) {
      std::fprintf(stderr, "loading %s failed: %s\n", path.c_str(), error.c_str());
      return std::nullopt;
    }
  }
  std::sort(out.ms.begin(), out.ms.end());
  return out;
}

}  // namespace vktune::runtime::bench
