// The header checks of a SPIR-V module.
#include "db/spirv_check.h"

#include <cstdio>
#include <cstring>

namespace vktune::db {

std::string spirv_problem(std::span<const uint8_t> bytes) {
  const std::string size = std::to_string(bytes.size()) + " bytes";
  if (bytes.size() % 4 != 0) return "is " + size + ", not whole 32-bit words";
  if (bytes.size() < kSpirvHeaderBytes) {
    return "is " + size + ", shorter than a SPIR-V header (" + std::to_string(kSpirvHeaderBytes) +
           " bytes)";
  }
  uint32_t magic = 0;
  std::memcpy(&magic, bytes.data(), sizeof magic);
  if (magic != kSpirvMagic) {
    char text[16];
    std::snprintf(text, sizeof text, "0x%08x", magic);
    return std::string("starts with ") + text + ", not the SPIR-V magic number 0x07230203";
  }
  return {};
}

}  // namespace vktune::db
