// Fuzzes opening a database image: header checks, quick_check, version checks, migration and
// a full read. Any input must either open or throw db::Error.
#include <cstddef>
#include <cstdint>
#include <span>

#include "db/error.h"
#include "db/store.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    vktune::db::Store store = vktune::db::Store::open_image(std::span(data, size), "fuzz.db");
    (void)store.catalog();
    (void)store.measurements();
    (void)store.runs();
  } catch (const vktune::db::Error&) {
  }
  return 0;
}
