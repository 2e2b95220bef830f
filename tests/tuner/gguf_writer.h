// Builds GGUF headers in memory for tests (no tensor data: the readers never look past the
// header), plus the little-endian primitives to write hostile ones by hand, and reads them back.
#pragma once

#include <cstdint>
#include <cstring>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "kernels/models/gguf_header.h"

namespace vktune::testing {

// The header in `bytes`, read as the file "m.gguf" (errors start "m.gguf: ").
inline models::GgufHeader read_gguf_bytes(const std::string& bytes) {
  std::istringstream in(bytes);
  return models::read_gguf_header(in, bytes.size(), "m.gguf");
}

template <typename T>
void put(std::string& out, T value) {
  char bytes[sizeof value];
  std::memcpy(bytes, &value, sizeof value);
  out.append(bytes, sizeof value);
}
inline void put_string(std::string& out, std::string_view s) {
  put<uint64_t>(out, s.size());
  out.append(s);
}

// GGUF metadata value types (gguf.h).
enum GgufType : uint32_t { kU32 = 4, kI32 = 5, kF32 = 6, kBool = 7, kString = 8, kArray = 9 };

class GgufWriter {
 public:
  GgufWriter& u32(std::string_view key, uint32_t value) {
    entry(key, kU32);
    put(kvs_, value);
    return *this;
  }
  GgufWriter& text(std::string_view key, std::string_view value) {
    entry(key, kString);
    put_string(kvs_, value);
    return *this;
  }
  GgufWriter& strings(std::string_view key, const std::vector<std::string>& values) {
    entry(key, kArray);
    put<uint32_t>(kvs_, kString);
    put<uint64_t>(kvs_, values.size());
    for (const std::string& v : values) put_string(kvs_, v);
    return *this;
  }
  GgufWriter& floats(std::string_view key, const std::vector<float>& values) {
    entry(key, kArray);
    put<uint32_t>(kvs_, kF32);
    put<uint64_t>(kvs_, values.size());
    for (float v : values) put(kvs_, v);
    return *this;
  }
  // dims as GGUF stores them: innermost first ({K, N} for a linear [N, K]).
  GgufWriter& tensor(std::string_view name, const std::vector<uint64_t>& dims) {
    put_string(tensors_, name);
    put<uint32_t>(tensors_, static_cast<uint32_t>(dims.size()));
    for (uint64_t d : dims) put(tensors_, d);
    put<uint32_t>(tensors_, 0);                    // F32
    put<uint64_t>(tensors_, tensor_count_ * 64);  // offset into the (absent) data
    ++tensor_count_;
    return *this;
  }
  // A linear [n, k] named `name`.weight.
  GgufWriter& linear(const std::string& name, uint64_t n, uint64_t k) {
    return tensor(name + ".weight", {k, n});
  }

  std::string bytes(uint32_t version = 3) const {
    std::string out = "GGUF";
    put(out, version);
    put(out, tensor_count_);
    put(out, kv_count_);
    return out + kvs_ + tensors_;
  }

 private:
  void entry(std::string_view key, uint32_t type) {
    put_string(kvs_, key);
    put(kvs_, type);
    ++kv_count_;
  }
  std::string kvs_, tensors_;
  uint64_t kv_count_ = 0, tensor_count_ = 0;
};

}  // namespace vktune::testing
