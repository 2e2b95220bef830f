// The generated table (runtime/builtin_spirv.inc) and its lookup.
#include "runtime/builtin_spirv.h"

namespace vktune::runtime {
namespace {

struct Entry {
  std::string_view key;
  std::span<const uint32_t> words;
};

#include "runtime/builtin_spirv.inc"

}  // namespace

std::span<const uint32_t> builtin_spirv(std::string_view variant_key) noexcept {
  for (const Entry& e : kBuiltinSpirv) {
    if (e.key == variant_key) return e.words;
  }
  return {};
}

}  // namespace vktune::runtime
