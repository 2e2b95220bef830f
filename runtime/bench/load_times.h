// Timing Snapshot::load on a database file: what both runtime benchmarks report of it.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "runtime/snapshot.h"

namespace vktune::runtime::bench {

struct LoadTimes {
  std::vector<double> ms;                     // each load's wall time, ascending
  std::shared_ptr<const Snapshot> snapshot;   // the last one loaded
};

// Loads `path` `times` times (at least once); nullopt, the reason printed on stderr, when a
// load fails.
std::optional<LoadTimes> time_loads(const std::string& path, int times);

}  // namespace vktune::runtime::bench
