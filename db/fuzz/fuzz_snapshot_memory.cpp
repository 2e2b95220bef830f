// Fuzzes the runtime's memory loader (Snapshot::load_memory): an application's asset as a .db
// image or a JSON document. Any input must load or return nullptr with a message (never throw,
// never crash); a loaded snapshot must answer a query.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "runtime/snapshot.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string error;
  const auto snapshot =
      vktune::runtime::Snapshot::load_memory(std::span(data, size), "fuzz", &error);
  if (snapshot) {
    (void)snapshot->select({}, {"q4gsw", "f32", 1, 4096, 4096, 32});
  } else if (error.empty()) {
    __builtin_trap();  // a failure must say why
  }
  return 0;
}
