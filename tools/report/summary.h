// The numbers every report shares: per (device, problem) the winner, its throughput, and its
// speedup over the naive baseline and over the built-in "fixed routing" variant. The HTML,
// Markdown, CSV and plain-text renderers, `vktune tune` and `vktune bench` all read a Summary.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "db/ops/problem_label.h"
#include "db/records.h"
#include "db/store.h"

namespace vktune::report {

// Variants per status for one (device, problem), or summed over a device. A variant measured in
// several runs, or under several versions of its shader, counts once: as wrong_result if any run
// found its latest shader wrong (the `best` view never picks it then), else with the status of
// its latest measurement.
struct StatusCounts {
  std::array<int64_t, 6> by_status{};  // indexed by db::Status

  int64_t operator[](db::Status s) const noexcept { return by_status[static_cast<size_t>(s)]; }
  int64_t total() const noexcept;
  StatusCounts& operator+=(const StatusCounts& other) noexcept;
};

// The fastest ok variant of one family on one (device, problem).
struct FamilyBest {
  std::string family;
  std::string variant_key;
  double median_ns = 0;
  std::optional<double> gbps;
  std::optional<double> gflops;
};

// Best q4gsw_tiled time for one register tile, over every other knob (layout, wg, bk).
struct TileCell {
  uint32_t tm = 0;
  uint32_t tn = 0;
  double median_ns = 0;
  std::string variant_key;  // the variant that achieved it
};

struct ProblemSummary {
  db::Problem problem;

  // The winner, from the store's `best` view.
  std::string winner_key;
  std::string winner_family;
  double median_ns = 0;
  std::optional<double> gbps;  // as stored in measurements.gbps (bytes moved / time)
  std::optional<double> gflops;
  std::optional<double> pct_bandwidth;  // gbps / device copy bandwidth * 100
  // The winner's sample spread: its measurement's 10th and 90th percentile.
  std::optional<double> p10_ns;
  std::optional<double> p90_ns;
  // The fastest ok variant other than the winner (never one found wrong in any run).
  std::string runner_up_key;
  std::optional<double> runner_up_ns;

  // Baseline: the fastest ok q4gsw_naive variant (absent for rms_norm or when not measured).
  std::optional<std::string> naive_key;
  std::optional<double> naive_ns;
  std::optional<double> speedup_naive;  // naive_ns / median_ns

  // Fixed routing: runtime::select_builtin's variant for this problem, when it was measured.
  std::string fixed_key;  // always set (what the built-in rule would pick)
  std::optional<double> fixed_ns;
  std::optional<double> speedup_fixed;  // fixed_ns / median_ns

  StatusCounts status_counts;
  std::vector<FamilyBest> family_best;  // fastest first
  std::vector<TileCell> tiles;          // q4gsw_tiled only; sorted by (tm, tn)
  // Every variant with an ok result (none found wrong): its fastest median, by variant key.
  std::map<std::string, double> ok_ns;

  // The latest run's coverage record of this device and problem (runs ranked as the `best`
  // view ranks them). Absent when no run wrote one (databases from before schema v3): then
  // nobody knows how many variants are legal, and the problem must not pass for complete.
  std::optional<db::Coverage> coverage;
  // That run's strategy measures a chosen part of the legal variants by design (model: the cost
  // model's picks; halving: the families its screen keeps, tuner/family_screen.h), so fewer
  // measured than legal is a finished search, not a cut one.
  bool searched_by_design = false;

  // Variants with a result of any run, each kernel once.
  int64_t measured() const noexcept { return status_counts.total(); }
  // The search is unfinished: the latest run's budget cut it short, or fewer variants were
  // measured than legal by a run that was not a model search. nullopt when unknown (no
  // coverage record).
  std::optional<bool> cut() const noexcept;
  // A finished model or halving search that measured part of the legal variants (shown as
  // "searched").
  bool searched() const noexcept;
  // (p90 - p10) / median of the winner, in percent; nullopt without both quantiles.
  std::optional<double> spread_pct() const noexcept;
  // How much slower the runner-up is than the winner, in percent; nullopt without one.
  std::optional<double> margin_pct() const noexcept;
};

// Geometric mean of speedup_fixed over the problems of one M class that have a fixed time.
struct Geomean {
  std::string label;              // "1", "2-8", "16-64", ">=128" or "all"
  int64_t count = 0;              // problems that entered the mean
  std::optional<double> speedup;  // absent when count == 0
};

struct DeviceSummary {
  db::DeviceRecord device;
  std::vector<ProblemSummary> problems;  // by op, then M, N, K, group size
  // q4gsw problems per M class, then every problem of any op ("all").
  std::vector<Geomean> geomean_fixed;
  StatusCounts status_counts;
};

struct Summary {
  std::string source;                  // the store's label, its file name without directories
  std::vector<DeviceSummary> devices;  // in the store's device order
  std::vector<db::RunRecord> runs;     // runs with at least one measurement on these devices
};

struct SummaryOptions {
  // Restricts the summary to matching devices: a DB row id (all digits) or a case-insensitive
  // substring of the device name. Empty: every device.
  std::string device;
  // Restricts the summary to the (device, problem) pairs these runs recorded coverage for
  // (`tune`'s closing table: what the run tuned, not the whole database; with --devices, the
  // runs of its workers), and leaves out the devices they did not tune. Empty: every problem.
  std::vector<int64_t> runs;
};

// Reads everything from `store` in one pass. Throws db::Error on a database failure and
// std::invalid_argument when options.device matches no device (the message lists them).
Summary summarize(const db::Store& store, const SummaryOptions& options = {});

// M classes of the geometric means: 1, 2-8, 16-64, >=128. The tuner's shapes are powers of
// two; M in 9..15 counts as "16-64" and M in 65..127 as ">=128".
inline constexpr std::array<std::string_view, 4> kMClassLabels{"1", "2-8", "16-64", ">=128"};
size_t m_class(uint32_t m) noexcept;

// Geometric mean of `values` (all > 0); nullopt when empty.
std::optional<double> geometric_mean(const std::vector<double>& values);

// The built-in routing's variant key for `p` (runtime::builtin_key), "" when none applies.
std::string fixed_routing_key(const db::Problem& p);

// Whether the report groups `p`'s speedups by M class (its op's OpDescriptor says).
bool by_m_class(const db::Problem& p) noexcept;

// The plain-text table `vktune tune`, `vktune bench` and `vktune report --format txt` print:
// per device a header line, then columns problem, winner, time us, GB/s, %BW, GFLOP/s,
// x naive, x fixed ("-" where absent), coverage (format_coverage), then the geometric means.
std::string render_table(const Summary& summary);

// Number formatting shared by every renderer: fixed decimals, "-" for nullopt.
std::string format_number(std::optional<double> value, int decimals);
// "12.3x" or "-".
std::string format_speedup(std::optional<double> value);
// Measured out of legal: "631/631", "212/631 cut", or "212/?" when legal is unknown.
std::string format_coverage(const ProblemSummary& p);
// The latest coverage record's variants timed per stage, "631>211>71>24>8>3"; "" when unknown.
std::string format_stages(const ProblemSummary& p);

}  // namespace vktune::report
