// An immutable, in-memory copy of a kernel database's winners, indexed for lookups that take
// well under a microsecond, never allocate, never lock and never throw.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "db/records.h"
#include "kernels/output_tile.h"
#include "runtime/selection.h"

namespace vktune::runtime {

// Built once by load() or from_catalog(), then read-only: any number of threads may call
// select() on one snapshot at once. Share it through the shared_ptr; Selections point into it.
class Snapshot {
 public:
  // Loads a .db file (SQLite magic) or an exported JSON document ('{'), either one possibly
  // zstd-compressed, detected by content (db/database_file.h). Returns nullptr and sets *error (when given) to a message naming the file on failure.
  // Never throws.
  static std::shared_ptr<const Snapshot> load(const std::string& path,
                                              std::string* error = nullptr) noexcept;
  // The same from a file's bytes already in memory (an application's asset): a .db image
  // (opened as a private copy with SQLite's deserialize, checked as load() checks a file) or a
  // JSON document, either one possibly zstd-compressed. `bytes` is not kept. `label` names the source in errors and in each
  // Selection's `source`. A truncated, damaged or hostile buffer gives nullptr and *error,
  // never a crash. Never throws.
  static std::shared_ptr<const Snapshot> load_memory(std::span<const uint8_t> bytes,
                                                     const std::string& label,
                                                     std::string* error = nullptr) noexcept;
  // Builds from records already in memory (tests, tools); `source` becomes each Selection's
  // `source`. Never throws.
  static std::shared_ptr<const Snapshot> from_catalog(const db::Catalog& catalog,
                                                      std::string* error = nullptr,
                                                      std::string_view source = "catalog") noexcept;

  // Picks the variant for `problem` on `device`. Device: exact fingerprint, then the same
  // device under another driver (newest driver first), then the same vendor and device type;
  // for each candidate device: the exact problem, then the nearest tuned problem of the same
  // op, dtype and group size whose winner is legal for `problem`. The first hit wins (so an
  // exact device with a nearest shape beats another driver with the exact shape), except that a
  // device's answer for a shape it never tuned gives way to the kin's (same vendor and type)
  // whose matched shape is nearest, where nearer than its own by more than kKinDistance
  // (runtime/rank.h); without any, built-in routing. Invalid queries return status
  // invalid_query with a message.
  // noexcept, allocation-free, lock-free.
  Selection select(const DeviceQuery& device, const ProblemQuery& problem) const noexcept;

  size_t device_count() const noexcept;
  // Where it was loaded from: the path, the memory label or from_catalog's source.
  const std::string& source() const noexcept { return source_; }
  size_t winner_count() const noexcept;

  // Internal representation, public only so the implementation's helpers can name it.
  struct Kernel;
  struct Group;
  struct Lists;
  struct Device;

  Snapshot();
  ~Snapshot();

 private:
  // from_catalog's steps, one a function (snapshot.cpp).
  class Builder;
  // Writes `message` to *error (where given) and returns no snapshot: every failed build's and
  // load's end.
  static std::shared_ptr<const Snapshot> fail(std::string* error, std::string message) noexcept;
  // Device `d`'s answer for `problem` (its exact shape, else its ranked neighbours' pick, else its
  // nearest shape's winner), found at `level`, in `out`. False where it has none.
  bool answer(const Device& d, DeviceMatch level, const ProblemQuery& problem,
              Selection& out) const noexcept;

  std::string source_;
  std::vector<Kernel> kernels_;
  std::vector<Constraints> constraints_;  // kernels_[i].constraints, packed for the ranking
  // kernels_[i]'s output tile where it heads a ranked list (a candidate); {} for the rest
  std::vector<kernels::OutputTile> tiles_;
  std::vector<uint32_t> workgroup_sizes_;  // kernels_[i].workgroup_size, packed for the ranking
  std::vector<Device> devices_;  // sorted: vendor, device id, newest driver first
};

}  // namespace vktune::runtime
