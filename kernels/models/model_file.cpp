// Dispatches a model file to the GGUF or the config.json reader.
#include "kernels/models/model_file.h"

#include <array>
#include <cstring>
#include <fstream>
#include <iterator>
#include <stdexcept>

#include "kernels/models/gguf_header.h"
#include "kernels/models/gguf_model.h"
#include "kernels/models/model_config.h"

namespace vktune::models {
namespace {

// A config.json is a few kB; anything this large is not one.
constexpr std::streamoff kMaxConfigBytes = 16 << 20;

}  // namespace

ModelShapes load_model_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) throw std::invalid_argument(path + ": cannot open the model file");
  const std::streamoff size = in.tellg();
  in.seekg(0);
  std::array<char, 4> magic{};
  if (size >= 4 && in.read(magic.data(), magic.size()) && std::memcmp(magic.data(), "GGUF", 4) == 0) {
    return gguf_model_shapes(read_gguf_file(path), path);
  }
  if (size > kMaxConfigBytes) {
    throw std::invalid_argument(path + ": neither a GGUF file nor a config.json (" +
                                std::to_string(size) + " bytes)");
  }
  in.clear();
  in.seekg(0);
  const std::string text(std::istreambuf_iterator<char>(in), {});
  return model_shapes(parse_model_config(text, path), path);
}

}  // namespace vktune::models
