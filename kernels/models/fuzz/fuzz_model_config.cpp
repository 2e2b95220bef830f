// Fuzzes the config.json reader: any input must give shapes or throw std::invalid_argument;
// nothing else (crash, other exception, UB), and what it accepts has only in-range shapes.
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string_view>

#include "kernels/models/model_config.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const auto config = vktune::models::parse_model_config(text, "fuzz.json");
    for (const auto& l : vktune::models::model_shapes(config).linears) {
      if (l.n == 0 || l.k == 0 || l.n > vktune::models::kMaxModelDimension ||
          l.k > vktune::models::kMaxModelDimension) {
        __builtin_trap();
      }
    }
  } catch (const std::invalid_argument&) {
  }
  return 0;
}
