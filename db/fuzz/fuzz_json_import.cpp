// Fuzzes the JSON document readers: import into a store and the runtime's catalog reader.
// Any input must either load or throw db::Error; nothing else (crash, other exception, UB).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "db/error.h"
#include "db/json_io.h"
#include "db/store.h"
#include "runtime/snapshot.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    vktune::db::Store store = vktune::db::Store::open_memory();
    vktune::db::import_json_text(store, text, "fuzz.json");
    // What was imported must export and re-import to the same thing.
    vktune::db::Store again = vktune::db::Store::open_memory();
    again.merge_from(store);
    if (vktune::db::export_json_text(again) != vktune::db::export_json_text(store)) __builtin_trap();
  } catch (const vktune::db::Error&) {
  }
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
