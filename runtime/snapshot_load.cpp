// Snapshot::load and load_memory: what a database file or buffer holds (SQLite or a JSON
// export, either one zstd-compressed), read into a catalog that from_catalog builds the
// snapshot from.
#include "db/database_file.h"
#include "runtime/snapshot.h"

namespace vktune::runtime {
namespace {

// from_catalog's result, its error (which cannot name the source) prefixed with `label`.
std::shared_ptr<const Snapshot> labelled(std::shared_ptr<const Snapshot> snap,
                                         const std::string& label, std::string* error) {
  if (!snap && error != nullptr) *error = label + ": " + *error;
  return snap;
}

}  // namespace

std::shared_ptr<const Snapshot> Snapshot::load(const std::string& path, std::string* error) noexcept {
  try {
    // No separate quick_check pass over an SQLite file: catalog() reads every row of every
    // table the snapshot is built from, and with on_read SQLite checks each page and cell as
    // it decodes them, so a damaged table still fails the load. What goes unchecked is what
    // the load never reads (indexes, the freelist). Skipping the pass saves ~12 ms of a ~38 ms
    // load at 10,000 problems x 5 devices.
    return labelled(from_catalog(db::read_catalog(path, db::IntegrityCheck::on_read), error, path),
                    path, error);
  } catch (const std::exception& e) {
    return fail(error, e.what());
  } catch (...) {
    return fail(error, path + ": unknown error while loading");
  }
}

std::shared_ptr<const Snapshot> Snapshot::load_memory(std::span<const uint8_t> bytes,
                                                      const std::string& label,
                                                      std::string* error) noexcept {
  try {
    const db::DatabaseContent content = db::database_content(bytes, label);
    return labelled(from_catalog(db::read_catalog(content, label), error, label), label, error);
  } catch (const std::exception& e) {
    return fail(error, e.what());
  } catch (...) {
    return fail(error, label + ": unknown error while loading");
  }
}

}  // namespace vktune::runtime
