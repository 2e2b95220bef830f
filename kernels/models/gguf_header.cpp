// A small, strict GGUF header reader: every read is bounds-checked against the bytes left, and
// every count and length is limited before anything is allocated or looped over.
#include "kernels/models/gguf_header.h"

#include <array>
#include <cstring>
#include <fstream>
#include <stdexcept>

namespace vktune::models {
namespace {

constexpr uint64_t kMaxEntries = uint64_t{1} << 20;      // tensors, metadata entries
constexpr uint64_t kMaxString = uint64_t{1} << 20;       // bytes in one key or string value
constexpr uint32_t kMaxDims = 4;                         // GGML_MAX_DIMS
constexpr uint32_t kMaxArrayDepth = 2;                   // arrays of arrays, no deeper

enum Type : uint32_t {
  u8, i8, u16, i16, u32, i32, f32, boolean, string, array, u64, i64, f64, type_count
};

class Reader {
 public:
  Reader(std::istream& in, uint64_t size, const std::string& name)
      : in_(in), size_(size), name_(name) {}

  [[noreturn]] void fail(const std::string& what) const {
    throw std::invalid_argument(name_ + ": " + what + ", at byte " + std::to_string(offset_));
  }

  void bytes(void* out, uint64_t n, const char* what) {
    if (n > size_ - offset_) fail(std::string("truncated while reading ") + what);
    if (!in_.read(static_cast<char*>(out), static_cast<std::streamsize>(n))) {
      fail(std::string("could not read ") + what);
    }
    offset_ += n;
  }
  // GGUF is little-endian, as are the hosts vktune runs on.
  template <typename T>
  T scalar(const char* what) {
    T value;
    bytes(&value, sizeof value, what);
    return value;
  }
  // A count whose items take at least `min_item_bytes` each: bounded by `limit` and by the
  // bytes left, so a hostile count fails here instead of in a long loop or an allocation.
  uint64_t count(uint64_t limit, uint64_t min_item_bytes, const char* what) {
    const uint64_t n = scalar<uint64_t>(what);
    if (n > limit) fail(std::string(what) + " " + std::to_string(n) + " exceeds " + std::to_string(limit));
    if (n > (size_ - offset_) / min_item_bytes) {
      fail("truncated or corrupt: " + std::string(what) + " " + std::to_string(n) + " needs more than the " +
           std::to_string(size_ - offset_) + " bytes left");
    }
    return n;
  }
  std::string text(const char* what) {
    std::string s(count(kMaxString, 1, what), '\0');
    bytes(s.data(), s.size(), what);
    return s;
  }
  void skip(uint64_t n, const char* what) {
    if (n > size_ - offset_) fail(std::string("truncated while reading ") + what);
    if (!in_.ignore(static_cast<std::streamsize>(n))) fail(std::string("could not read ") + what);
    offset_ += n;
  }

 private:
  std::istream& in_;
  uint64_t size_, offset_ = 0;
  const std::string& name_;
};

uint64_t fixed_size(uint32_t type) {
  static constexpr std::array<uint64_t, type_count> sizes = {1, 1, 2, 2, 4, 4, 4, 1, 0, 0, 8, 8, 8};
  return type < type_count ? sizes[type] : 0;
}

GgufValue value(Reader& r, uint32_t type, uint32_t depth);

GgufArray array_value(Reader& r, uint32_t depth) {
  if (depth >= kMaxArrayDepth) r.fail("arrays nested deeper than " + std::to_string(kMaxArrayDepth));
  GgufArray a;
  a.element_type = r.scalar<uint32_t>("array element type");
  if (a.element_type >= type_count) r.fail("unknown array element type " + std::to_string(a.element_type));
  const uint64_t item = a.element_type == string  ? sizeof(uint64_t)
                        : a.element_type == array ? sizeof(uint32_t) + sizeof(uint64_t)
                                                  : fixed_size(a.element_type);
  a.length = r.count(UINT64_MAX, item, "array length");
  if (a.element_type != string && a.element_type != array) {
    r.skip(a.length * item, "array");
    return a;
  }
  for (uint64_t i = 0; i < a.length; ++i) value(r, a.element_type, depth + 1);
  return a;
}

GgufValue value(Reader& r, uint32_t type, uint32_t depth) {
  switch (type) {
    case u8: return uint64_t{r.scalar<uint8_t>("u8 value")};
    case u16: return uint64_t{r.scalar<uint16_t>("u16 value")};
    case u32: return uint64_t{r.scalar<uint32_t>("u32 value")};
    case u64: return r.scalar<uint64_t>("u64 value");
    case i8: return int64_t{r.scalar<int8_t>("i8 value")};
    case i16: return int64_t{r.scalar<int16_t>("i16 value")};
    case i32: return int64_t{r.scalar<int32_t>("i32 value")};
    case i64: return r.scalar<int64_t>("i64 value");
    case f32: return double{r.scalar<float>("f32 value")};
    case f64: return r.scalar<double>("f64 value");
    case boolean: {
      const uint8_t b = r.scalar<uint8_t>("bool value");
      if (b > 1) r.fail("bool value " + std::to_string(b) + " is neither 0 nor 1");
      return b == 1;
    }
    case string: return r.text("string value");
    case array: return array_value(r, depth);
    default: r.fail("unknown metadata value type " + std::to_string(type));
  }
}

}  // namespace

std::optional<uint64_t> GgufHeader::integer(const std::string& key) const {
  const auto it = metadata.find(key);
  if (it == metadata.end()) return std::nullopt;
  if (const auto* u = std::get_if<uint64_t>(&it->second)) return *u;
  if (const auto* i = std::get_if<int64_t>(&it->second); i && *i >= 0) return static_cast<uint64_t>(*i);
  return std::nullopt;
}

std::string GgufHeader::text(const std::string& key) const {
  const auto it = metadata.find(key);
  const auto* s = it == metadata.end() ? nullptr : std::get_if<std::string>(&it->second);
  return s ? *s : "";
}

const GgufTensor* GgufHeader::tensor(const std::string& tensor_name) const {
  const auto it = tensor_index.find(tensor_name);
  return it == tensor_index.end() ? nullptr : &tensors[it->second];
}

GgufHeader read_gguf_header(std::istream& in, uint64_t size, const std::string& name) {
  Reader r(in, size, name);
  std::array<char, 4> magic{};
  r.bytes(magic.data(), magic.size(), "the magic");
  if (std::memcmp(magic.data(), "GGUF", 4) != 0) r.fail("not a GGUF file (the magic is not \"GGUF\")");
  GgufHeader h;
  h.version = r.scalar<uint32_t>("the version");
  if (h.version != 2 && h.version != 3) {
    r.fail("GGUF version " + std::to_string(h.version) + " is not supported (2 or 3)");
  }
  // The smallest tensor info: empty name (8), one dim (4 + 8), type (4), offset (8).
  const uint64_t tensor_count = r.count(kMaxEntries, 32, "tensor count");
  // The smallest entry: empty key (8), type (4), a one-byte value.
  const uint64_t metadata_count = r.count(kMaxEntries, 13, "metadata count");
  for (uint64_t i = 0; i < metadata_count; ++i) {
    std::string key = r.text("a metadata key");
    const uint32_t type = r.scalar<uint32_t>("a metadata value type");
    GgufValue v = value(r, type, 0);
    if (!h.metadata.emplace(std::move(key), std::move(v)).second) r.fail("a metadata key repeats");
  }
  for (uint64_t i = 0; i < tensor_count; ++i) {
    GgufTensor t;
    t.name = r.text("a tensor name");
    const uint32_t n_dims = r.scalar<uint32_t>("a tensor's dimension count");
    if (n_dims == 0 || n_dims > kMaxDims) {
      r.fail("tensor \"" + t.name + "\" has " + std::to_string(n_dims) + " dimensions (1.." +
             std::to_string(kMaxDims) + ")");
    }
    for (uint32_t d = 0; d < n_dims; ++d) {
      t.dims.push_back(r.scalar<uint64_t>("a tensor dimension"));
      if (t.dims.back() == 0) r.fail("tensor \"" + t.name + "\" has a zero dimension");
    }
    t.type = r.scalar<uint32_t>("a tensor type");
    r.scalar<uint64_t>("a tensor offset");
    if (!h.tensor_index.emplace(t.name, h.tensors.size()).second) {
      r.fail("tensor name \"" + t.name + "\" repeats");
    }
    h.tensors.push_back(std::move(t));
  }
  return h;
}

GgufHeader read_gguf_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) throw std::invalid_argument(path + ": cannot open the file");
  const std::streamoff size = in.tellg();
  in.seekg(0);
  if (size < 0 || !in) throw std::invalid_argument(path + ": cannot read the file's size");
  return read_gguf_header(in, static_cast<uint64_t>(size), path);
}

}  // namespace vktune::models
