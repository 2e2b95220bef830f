// CPU prepack raw <-> packed (see q4gsw_layout.h for the layout).
#include "kernels/families/q4gsw_layout.h"

#include <stdexcept>
#include <string>

namespace vktune::kernels {
namespace {

// Byte offset and shift of nibble (n, k) in the packed layout.
inline uint64_t packed_byte(uint32_t np, uint32_t n, uint32_t k) {
  const uint64_t block = uint64_t{k / kPackedKBlock} * np + n;
  return block * 16 + (k % kPackedKBlock) / 2;
}

}  // namespace

std::vector<uint8_t> prepack(std::span<const uint8_t> raw, uint32_t n, uint32_t k) {
  if (k % 2 != 0 || raw.size() != uint64_t{n} * (k / 2)) {
    throw std::invalid_argument("prepack: raw weight of " + std::to_string(raw.size()) +
                                " bytes does not match N=" + std::to_string(n) +
                                " x K/2 with even K=" + std::to_string(k));
  }
  const uint32_t np = packed_n(n);
  std::vector<uint8_t> packed(packed_weight_bytes(n, k), 0x88);  // padding: q = 8, weight 0
  for (uint32_t r = 0; r < n; ++r) {
    const uint8_t* row = raw.data() + uint64_t{r} * (k / 2);
    for (uint32_t j = 0; j < k / 2; ++j) packed[packed_byte(np, r, 2 * j)] = row[j];
  }
  return packed;
}

std::vector<uint8_t> unpack(std::span<const uint8_t> packed, uint32_t n, uint32_t k) {
  if (k % 2 != 0 || packed.size() != packed_weight_bytes(n, k)) {
    throw std::invalid_argument("unpack: packed weight of " + std::to_string(packed.size()) +
                                " bytes does not match N=" + std::to_string(n) +
                                " K=" + std::to_string(k));
  }
  const uint32_t np = packed_n(n);
  std::vector<uint8_t> raw(uint64_t{n} * (k / 2));
  for (uint32_t r = 0; r < n; ++r) {
    uint8_t* row = raw.data() + uint64_t{r} * (k / 2);
    for (uint32_t j = 0; j < k / 2; ++j) row[j] = packed[packed_byte(np, r, 2 * j)];
  }
  return raw;
}

}  // namespace vktune::kernels
