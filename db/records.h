// Plain records the store reads and writes: one struct per table, no Vulkan types, no
// behaviour. Row ids are 0 until the store assigns them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

namespace vktune::db {

// A physical device plus driver, identified by its full fingerprint (vendor_id, device_id,
// driver_id, driver_version, pipeline_cache_uuid, name): a different driver or a different
// pipeline cache UUID can change the best kernel, so each is a distinct device.
struct DeviceRecord {
  int64_t id = 0;
  uint32_t vendor_id = 0;
  uint32_t device_id = 0;
  std::string name;
  uint32_t driver_id = 0;       // VkDriverId value
  uint32_t driver_version = 0;  // raw VkPhysicalDeviceProperties::driverVersion
  std::string driver_version_text;
  std::string driver_info;
  uint32_t api_version = 0;
  std::string pipeline_cache_uuid;  // 32 lowercase hex characters
  std::string device_type = "other";  // discrete, integrated, virtual, cpu or other
  uint32_t subgroup_size = 0;
  std::string properties_json = "{}";  // limits and features, verbatim JSON text
  std::optional<double> copy_bandwidth_gbps;  // measured device-local copy, GB/s

  friend bool operator==(const DeviceRecord&, const DeviceRecord&) = default;
};

// One compiled variant. knobs_json keeps the family's declared knob order (see
// docs/variants.md), so it is stored as text, never re-serialized through a sorted map.
struct KernelRecord {
  int64_t id = 0;
  std::string family;
  std::string variant_key;
  std::string knobs_json = "{}";
  std::string constraints_json = "{}";
  std::string layout;
  uint32_t workgroup_size = 0;
  std::string source_hash;
  std::optional<std::vector<uint8_t>> spirv;
  // The specialisation constants the SPIR-V takes at pipeline creation: a JSON array of
  // [constant_id, value] pairs in ascending id; "[]" for none. Decided by the source and the
  // knobs, as the SPIR-V is, so one (variant key, source hash) has one.
  std::string specialization_json = "[]";

  bool specialised() const { return specialization_json != "[]"; }

  friend bool operator==(const KernelRecord&, const KernelRecord&) = default;
};

// A problem shape. For rms_norm K == N and group_size == 0; for sdpa N is the context
// length, K the head dim, with heads and kv_heads (0 for the other ops; docs/attention.md).
struct Problem {
  int64_t id = 0;
  std::string op;
  std::string dtype;
  uint32_t m = 0;
  uint32_t n = 0;
  uint32_t k = 0;
  uint32_t group_size = 0;
  uint32_t heads = 0;
  uint32_t kv_heads = 0;

  friend bool operator==(const Problem&, const Problem&) = default;
};

// One tuning session. uuid is the run's natural key across merged databases; begin_run
// generates one when empty. Timestamps are ISO-8601 UTC text ("2024-05-01T12:00:00Z").
struct RunRecord {
  int64_t id = 0;
  std::string uuid;
  std::string started_at;  // filled with the current time when empty
  std::optional<std::string> ended_at;
  std::string strategy;
  std::string tool_version;
  std::string host;
  std::string cache_mode;  // "cold" or "hot"

  friend bool operator==(const RunRecord&, const RunRecord&) = default;
};

enum class Status { ok, wrong_result, compile_error, unsupported, timeout, device_lost };

std::string_view to_string(Status status) noexcept;
// Returns nullopt for a name that is not a Status.
std::optional<Status> parse_status(std::string_view name) noexcept;

// One stored result. Statistics are nanoseconds of GPU time per dispatch and are null for a
// result that is not ok.
struct Measurement {
  int64_t id = 0;
  int64_t run_id = 0;
  int64_t device_id = 0;
  int64_t problem_id = 0;
  int64_t kernel_id = 0;
  Status status = Status::ok;
  std::string message;
  uint32_t n = 0;  // samples taken
  std::optional<double> median_ns;
  std::optional<double> min_ns;
  std::optional<double> p10_ns;
  std::optional<double> p90_ns;
  std::optional<double> max_error;  // worst |gpu - reference| / bound
  std::optional<double> gbps;
  std::optional<double> gflops;

  friend bool operator==(const Measurement&, const Measurement&) = default;
};

// What is wrong with a measurement's timings: the column at fault ("p10_ns") and why, or no
// column when they are sound. Each present timing is finite and >= 0, and the present ones
// are ordered min_ns <= p10_ns <= median_ns <= p90_ns, up to rounding (1e-9 relative; a
// quantile out of order means the statistics were not computed from one set of samples). The importer refuses such rows.
struct TimingError {
  const char* column = nullptr;
  std::string what;
  explicit operator bool() const noexcept { return column != nullptr; }
};
TimingError timing_error(const Measurement& m);

// How much of one problem's space one run measured on one device (table `coverage`).
struct Coverage {
  int64_t run_id = 0;
  int64_t device_id = 0;
  int64_t problem_id = 0;
  uint32_t legal = 0;     // variants legal for the problem on the device, of every family (not
                          // only those the run measured: --families, the bench's own choice)
  uint32_t measured = 0;  // of them, with a result of this run (any status)
  // Variants timed at each stage: stage one (every variant that passed the gate), halving's
  // later stages, the finalists' re-measurement last.
  std::vector<uint32_t> stages;
  bool budget_cut = false;  // the budget ended the problem before every variant was measured

  friend bool operator==(const Coverage&, const Coverage&) = default;
};

// The winner of one (device, problem): row of the `best` view.
struct BestRow {
  int64_t device_id = 0;
  int64_t problem_id = 0;
  int64_t kernel_id = 0;
  int64_t run_id = 0;
  int64_t measurement_id = 0;
  double median_ns = 0;

  friend bool operator==(const BestRow&, const BestRow&) = default;
};

// Selects measurements; unset fields match everything.
struct MeasurementFilter {
  std::optional<int64_t> run_id;
  std::optional<int64_t> device_id;
  std::optional<int64_t> problem_id;
  std::optional<int64_t> kernel_id;
  std::optional<Status> status;
};

// How many of each problem's fastest variants Catalog::ranked keeps: enough that a variant
// which is slow on a neighbouring problem shows as slow there rather than as merely absent
// (the runtime's ranking of untuned shapes, runtime/rank.h), few enough that the winners'
// export stays small.
inline constexpr size_t kRankedPerProblem = 32;
// How many of the head of each problem's ranked list the runtime may answer with (the rest only
// score them; runtime/rank.h). With the winners, the kernels a winners export carries SPIR-V for.
inline constexpr size_t kRankedPickable = 3;

// Everything a lookup needs, read in one go (the runtime's input). winners and ranked refer to
// the ids of the records in the same Catalog.
struct Catalog {
  std::vector<DeviceRecord> devices;
  std::vector<KernelRecord> kernels;
  std::vector<Problem> problems;
  std::vector<BestRow> winners;
  // Per (device, problem), up to kRankedPerProblem distinct kernels, fastest first. A kernel its
  // reference run measured (the run that measured the most distinct kernels there, the latest
  // on a tie) counts with its best ok measurement in that run: runs differ in clocks and
  // protocol (one H100 run's times are a third of another's), and a ratio of times from two
  // runs compares the runs, not the variants. A kernel only other runs measured (a family
  // re-tuned in a run of its own, variants a --fill added) counts with its best ok time among
  // them: left out, it would read as slower than the whole list. Otherwise by the `best` view's
  // rules, so the first need not be the winner. Grouped by device and problem. A catalog read
  // from a document without them holds the winners here.
  std::vector<BestRow> ranked;
};

// The kernels a runtime can answer with, by id: the winners' and the first kRankedPickable of
// each ranked list (`ranked` grouped by device and problem, fastest first, as Catalog::ranked
// is). What a winners export and a tuning run give SPIR-V to.
std::unordered_set<int64_t> answer_kernels(const std::vector<BestRow>& winners,
                                           const std::vector<BestRow>& ranked);
// Each row's place in its list (0 for a list's fastest), `ranked` grouped as Catalog::ranked is.
std::vector<size_t> places_in_lists(const std::vector<BestRow>& ranked);

}  // namespace vktune::db
