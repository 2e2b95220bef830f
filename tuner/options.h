// What a tuning run is asked to do (`vktune tune` flags).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <future>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kernels/family.h"
#include "kernels/problem.h"
#include "tuner/dispatch_timer.h"

namespace vktune::db {
class Store;
}

namespace vktune::tuner {

enum class Strategy {
  exhaustive,  // every legal variant gets the full measurement
  halving,     // cheap estimate for all, what is near the best advances to more samples, repeatedly
  // The cost model (tuner/cost_model.h) ranks the variants; the search (tuner/model_search.h)
  // estimates the promising ones in rounds until no gain above the noise is expected, then
  // halving's later stages. Sweeps (halving) a problem whose op the model cannot rank yet.
  model,
};
// "exhaustive", "halving", "model".
const char* strategy_name(Strategy strategy) noexcept;
// The strategy named `name`, or nullopt.
std::optional<Strategy> parse_strategy(std::string_view name) noexcept;
enum class CacheMode {
  cold,  // rotate among weight copies whose total exceeds the last-level cache (decode's truth)
  hot,   // one weight copy, re-read from cache
};

struct TuneOptions {
  std::vector<kernels::Problem> problems;
  Strategy strategy = Strategy::halving;
  CacheMode cache = CacheMode::cold;
  // Wall time for the whole run; unset: no limit. Each problem gets a share of what is left in
  // proportion to its variants to measure, and the likeliest winners (warm start) go first;
  // every problem measures at least its first few variants, even past the budget.
  std::optional<std::chrono::duration<double>> budget;
  // Continue the latest unfinished run on this device; nothing already stored is re-measured.
  bool resume = false;
  // A new run that measures only the variants no earlier run measured on this device: finishes
  // the problems a budget cut. The winner is still the best of every run (the `best` view).
  bool fill = false;
  uint64_t seed = 1;
  // Strategy::model also learns from this database's measurements (besides those of the
  // database tuned into) on the device named train_device, and starts each problem from its
  // winners there; it must outlive the run. train_device empty: the tuned device's own name;
  // another: its kin's, for a device nobody tuned (`--train-db`, docs/cost-model.md). Waited for
  // once the device is open, before anything is written: the CLI reads a large database
  // (seconds) on another thread meanwhile. Invalid (the default): none.
  std::shared_future<const db::Store*> train_store;
  std::string train_device;
  // With train_store: the candidates are only the variants within this fraction of the best on
  // some problem of their op and dtype there, of a family or knob value never measured there,
  // the baselines and the neighbours' winners (tuner/kin_prior.h, `--prior`). Unset: every
  // legal variant.
  std::optional<double> prior;
  TimingOptions timing;      // the full measurement
  size_t finalists = 3;      // re-measured interleaved before a winner is named
  bool store_spirv = true;
  // Folder of the SPIR-V disk cache (kernels/vk/spirv_disk_cache.h) the run reads and fills, so a
  // later run skips GLSL compilation; unset: every shader is compiled.
  std::optional<std::filesystem::path> spirv_cache;
  // Folder of the driver's pipeline caches (kernels/vk/pipeline_cache_file.h), one file per
  // pipelineCacheUUID: loaded when the device opens, saved when the run ends, so a later run on
  // this device and driver creates its pipelines from the driver's cache; unset: none.
  std::optional<std::filesystem::path> pipeline_cache;
  // Families to sweep; empty: kernels::families(). Tests add a deliberately wrong one.
  std::vector<const kernels::Family*> families;
  // When set, only the variants it accepts are measured (`vktune bench` re-times a DB's
  // winners beside their baselines this way).
  std::function<bool(const kernels::Problem&, const std::string& key)> variant_filter;
  // When it reads true (a signal handler sets it), the run stops before its next shader compile,
  // chunk, stage or timing submission, commits what its finished chunks and stages measured and
  // throws TuneInterrupted; --resume continues it.
  const std::atomic<bool>* stop = nullptr;
  // The database file whose run this is: the run is claimed (tuner/run_lock.h) before anything
  // is measured, so a second process resuming it is refused. Empty: no claim (in-memory stores).
  std::string claim_path;
  // Test hook: stop (throw TuneAborted) once this many results were stored.
  std::optional<size_t> abort_after_results;
};

// A TuneOptions::train_store already read.
std::shared_future<const db::Store*> read_store(const db::Store& store);

}  // namespace vktune::tuner
