// Fuzzes the GGUF header reader and the shapes derived from it: any input must read or throw
// std::invalid_argument; nothing else (crash, other exception, UB, a huge allocation).
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <stdexcept>
#include <string>

#include "kernels/models/gguf_header.h"
#include "kernels/models/gguf_model.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  try {
    const auto header = vktune::models::read_gguf_header(in, size, "fuzz.gguf");
    vktune::models::gguf_model_shapes(header, "fuzz.gguf");
  } catch (const std::invalid_argument&) {
  }
  return 0;
}
