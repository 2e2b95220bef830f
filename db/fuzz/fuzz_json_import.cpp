// Fuzzes the JSON document readers: import into a store and the runtime's catalog reader.
// Any input must either load or throw db::Error; nothing else (crash, other exception, UB).
#include <sqlite3.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "db/error.h"
#include "db/json_io.h"
#include "db/store.h"
#include "runtime/snapshot.h"

namespace {

using vktune::db::Store;

// An empty in-memory store, opened and migrated once and emptied after every input: a fresh
// one costs about a millisecond of schema migrations under the sanitizers, which would hold the
// fuzzer near a hundred inputs a second. Emptied, it is the same as a fresh one (the schema
// has no AUTOINCREMENT, so row ids start again at 1).
class ReusedStore {
 public:
  ReusedStore() : store_(Store::open_memory()) {
    sqlite3_stmt* stmt = nullptr;
    sqlite3_prepare_v2(db(), "SELECT name FROM sqlite_master WHERE type = 'table' AND name "
                             "NOT LIKE 'sqlite_%'", -1, &stmt, nullptr);
    while (sqlite3_step(stmt) == SQLITE_ROW) {
      tables_.push_back("DELETE FROM \"" +
                        std::string(reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0))) +
                        "\"");
    }
    sqlite3_finalize(stmt);
    if (tables_.empty()) __builtin_trap();
  }
  Store& get() { return store_; }
  // Called after every input, whatever it did: a failed import must have rolled back.
  void empty() {
    if (!sqlite3_get_autocommit(db())) __builtin_trap();  // a transaction left open
    store_.connection().exec("PRAGMA foreign_keys = OFF");
    for (const std::string& sql : tables_) store_.connection().exec(sql);
    store_.connection().exec("PRAGMA foreign_keys = ON");
  }

 private:
  sqlite3* db() const { return store_.connection().get(); }
  Store store_;
  std::vector<std::string> tables_;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static ReusedStore first, second;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    Store& store = first.get();
    vktune::db::import_json_text(store, text, "fuzz.json");
    // What was imported must export and re-import to the same thing.
    Store& again = second.get();
    again.merge_from(store);
    if (vktune::db::export_json_text(again) != vktune::db::export_json_text(store)) __builtin_trap();
  } catch (const vktune::db::Error&) {
  }
  first.empty();
  second.empty();
  try {
    const auto catalog = vktune::db::catalog_from_json(text, "fuzz.json");
    std::string error;
    if (auto snap = vktune::runtime::Snapshot::from_catalog(catalog, &error)) {
      snap->select({}, {"q4gsw", "f32", 1, 64, 64, 32});
    }
  } catch (const vktune::db::Error&) {
  }
  return 0;
}
