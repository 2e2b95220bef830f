// The kernel database: devices, kernels, problems, runs and measurements in one SQLite file.
// The tuner writes through it; reports and the runtime read through it.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "db/open.h"
#include "db/records.h"
#include "db/sqlite.h"

namespace vktune::db {

// What a conflicting upsert does with the stored row.
enum class OnConflict {
  update,  // the new record's descriptive fields win (the tuner re-describing a device)
  keep,    // the stored row wins; only missing values (NULLs) are filled (merge, import)
};

// Rows added by an import or merge, per table. Zero everywhere means "nothing new".
struct ImportStats {
  int64_t devices = 0;
  int64_t kernels = 0;
  int64_t problems = 0;
  int64_t runs = 0;
  int64_t measurements = 0;
  int64_t coverage = 0;
  friend bool operator==(const ImportStats&, const ImportStats&) = default;
};

// One connection to one database. Move-only. Not thread-safe: use one Store per thread
// (several Stores on one file are fine: WAL lets readers run beside the writer, and writers
// wait up to 5 s on each other). Every failure throws Error naming the file.
class Store {
 public:
  // See open_database for the checks done on an existing file.
  static Store open(const std::string& path, OpenMode mode = OpenMode::read_write,
                    IntegrityCheck check = IntegrityCheck::quick_check);
  static Store open_memory(const std::string& label = ":memory:");
  // A private in-memory copy of a database file image.
  static Store open_image(std::span<const uint8_t> bytes, const std::string& label);

  Store(Store&&) noexcept = default;
  Store& operator=(Store&&) noexcept = default;

  const std::string& label() const noexcept { return connection_.label(); }
  const Connection& connection() const noexcept { return connection_; }

  // Starts a transaction that batches the writes below until commit(); each write otherwise
  // commits on its own.
  Transaction transaction() const { return Transaction(connection_); }

  // Upserts by natural key and returns the row id. Device key: the full fingerprint; kernel
  // key: (variant_key, source_hash); problem key: all fields. Validates field values (device
  // type, 32-hex UUID, non-zero dims) and throws Error naming the bad field.
  int64_t upsert_device(const DeviceRecord& device, OnConflict on_conflict = OnConflict::update);
  int64_t upsert_kernel(const KernelRecord& kernel, OnConflict on_conflict = OnConflict::update);
  int64_t upsert_problem(const Problem& problem);

  // Records a run; generates uuid and started_at when empty. A run with a stored uuid returns
  // the stored id (and fills its ended_at if missing).
  int64_t begin_run(const RunRecord& run);
  // Sets ended_at (now, ISO-8601 UTC, unless given).
  void end_run(int64_t run_id, const std::string& ended_at = {});

  // Stores one result in its own transaction, or in the caller's (the tuner commits a batch of
  // results at once: tuner/result_writer.h; an import, a document's). A second result for the
  // same (run, device, problem, kernel) replaces the first under OnConflict::update and is
  // dropped under keep. An ok result needs median_ns. Returns nothing: an import writes hundreds
  // of thousands and no caller needs their ids (RETURNING cost a sixth of an import's time).
  void add_measurement(const Measurement& m, OnConflict on_conflict = OnConflict::update);

  // Records how much of a problem's space a run measured; `measured` is counted here from the
  // run's stored results (the argument's is ignored), so it always agrees with them. A second
  // record of the same (run, device, problem) replaces the first under OnConflict::update (a
  // resumed run's) and is dropped under keep (merge, import).
  void put_coverage(const Coverage& coverage, OnConflict on_conflict = OnConflict::update);
  // Every coverage record, by run, device and problem.
  std::vector<Coverage> coverage() const;

  // True when (device, problem, kernel) has any measurement in any run with any status:
  // the --resume test ("already tried, skip it").
  bool has_measurement(int64_t device_id, int64_t problem_id, int64_t kernel_id) const;

  // Records a copy-bandwidth measurement of the device, keeping the highest: the device's
  // limit, which a run at lowered clocks or beside other work must not lower.
  void raise_copy_bandwidth(int64_t device_id, double gbps);

  std::vector<DeviceRecord> devices() const;
  std::vector<KernelRecord> kernels() const;
  std::vector<Problem> problems() const;
  std::vector<RunRecord> runs() const;
  std::vector<Measurement> measurements(const MeasurementFilter& filter = {}) const;
  // Winners from the `best` view: per (device, problem) the ok measurement with the smallest
  // median_ns, the latest run winning ties, never a kernel that gave a wrong result there.
  std::vector<BestRow> best(int64_t device_id) const;
  // The winner of one problem on one device, if any (a tuning run asks after each problem).
  std::optional<BestRow> best(int64_t device_id, int64_t problem_id) const;
  std::vector<BestRow> best() const;
  // Devices, kernels (SPIR-V only when with_spirv), problems and winners (the same rows as
  // best(), computed by a faster scan) in one read transaction, so the parts agree.
  Catalog catalog(bool with_spirv = true) const;

  // Adds everything of `other` that this store lacks, matching rows by natural keys (never by
  // row ids). Loss-free (stored rows win; their NULLs are filled) and idempotent.
  ImportStats merge_from(const Store& other);

 private:
  explicit Store(Connection connection) : connection_(std::move(connection)) {}
  Connection connection_;
};

// Current time as ISO-8601 UTC with second resolution.
std::string utc_now();

}  // namespace vktune::db
