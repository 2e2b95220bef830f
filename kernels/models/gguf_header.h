// The header of a GGUF model file (versions 2 and 3): its metadata and its tensors' names and
// shapes. Reads only the header; the tensor data after it is never touched.
#pragma once

#include <cstdint>
#include <istream>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <variant>
#include <vector>

namespace vktune::models {

// An array value keeps its element type and length only (a tokenizer's 128k tokens are
// skipped, not stored; the length is what a vocabulary size needs).
struct GgufArray {
  uint32_t element_type = 0;
  uint64_t length = 0;
};
using GgufValue = std::variant<uint64_t, int64_t, double, bool, std::string, GgufArray>;

// ne[0] is the innermost (contiguous) dimension: a linear weight [N, K] has dims {K, N}.
struct GgufTensor {
  std::string name;
  std::vector<uint64_t> dims;
  uint32_t type = 0;
};

struct GgufHeader {
  uint32_t version = 0;
  std::map<std::string, GgufValue> metadata;
  std::vector<GgufTensor> tensors;
  std::unordered_map<std::string, size_t> tensor_index;  // name -> position in tensors

  // The value of `key` as a non-negative integer (any integer type), or nullopt when absent
  // or of another type.
  std::optional<uint64_t> integer(const std::string& key) const;
  // The string value of `key`, or "" when absent or not a string.
  std::string text(const std::string& key) const;
  // The tensor called `name`, or nullptr; constant time (a header may list a million).
  const GgufTensor* tensor(const std::string& name) const;
};

// Reads a header from `in`, which holds `size` bytes from its current position. Strict: the
// magic "GGUF", version 2 or 3, at most 1M tensors and metadata entries, strings of at most
// 1 MiB, 1 to 4 non-zero dimensions per tensor, unique keys and tensor names, every count
// bounded by the bytes left. Throws
// std::invalid_argument "<name>: <what>, at byte <offset>" on anything else, truncation
// included.
GgufHeader read_gguf_header(std::istream& in, uint64_t size, const std::string& name);

// Opens `path` and reads its header; throws std::invalid_argument naming the file.
GgufHeader read_gguf_file(const std::string& path);

}  // namespace vktune::models
