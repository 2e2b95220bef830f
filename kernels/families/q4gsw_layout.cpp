// CPU prepack raw <-> packed (see q4gsw_layout.h for the layout).
#include "kernels/families/q4gsw_layout.h"

#include <stdexcept>
#include <string>

#include "kernels/float16.h"

namespace vktune::kernels {
namespace {

// Byte offset and shift of nibble (n, k) in the packed layout.
inline uint64_t packed_byte(uint32_t np, uint32_t n, uint32_t k) {
  const uint64_t block = uint64_t{k / kPackedKBlock} * np + n;
  return block * 16 + (k % kPackedKBlock) / 2;
}

// packed_s16 (needs gs % 32 == 0): the byte of nibble (n, k) and of output n's scale of group g.
struct S16Tiles {
  uint32_t octets, d;  // output octets Np/8; blocks per group gs/32
  uint64_t tile(uint32_t n, uint32_t g) const {
    return (uint64_t{g} * octets + n / kPackedNPad) * (uint64_t{d} * kPackedNPad + 1) * 16;
  }
  uint64_t nibble_byte(uint32_t n, uint32_t k) const {
    const uint32_t kb = k / kPackedKBlock;
    return tile(n, kb / d) + (uint64_t{kb % d} * kPackedNPad + n % kPackedNPad) * 16 +
           (k % kPackedKBlock) / 2;
  }
  uint64_t scale_byte(uint32_t n, uint32_t g) const {
    return tile(n, g) + uint64_t{d} * kPackedNPad * 16 + (n % kPackedNPad) * 2;
  }
};

S16Tiles s16_tiles(uint32_t n, uint32_t k, uint32_t gs, const char* what) {
  if (gs == 0 || gs % kPackedKBlock != 0 || k % gs != 0) {
    throw std::invalid_argument(std::string(what) + ": packed_s16 needs a group size that is a "
                                "multiple of 32 and divides K; got K=" + std::to_string(k) +
                                " group_size=" + std::to_string(gs));
  }
  return {packed_n(n) / kPackedNPad, gs / kPackedKBlock};
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

std::vector<uint8_t> prepack_s16(std::span<const uint8_t> raw, std::span<const float> scales,
                                 uint32_t n, uint32_t k, uint32_t gs) {
  const S16Tiles t = s16_tiles(n, k, gs, "prepack_s16");
  const uint32_t groups = k / gs;
  if (raw.size() != uint64_t{n} * (k / 2) || scales.size() != uint64_t{groups} * n) {
    throw std::invalid_argument("prepack_s16: " + std::to_string(raw.size()) +
                                " weight bytes and " + std::to_string(scales.size()) +
                                " scales do not match N=" + std::to_string(n) + " K=" +
                                std::to_string(k) + " group_size=" + std::to_string(gs));
  }
  std::vector<uint8_t> packed(packed_s16_weight_bytes(n, k, gs), 0x88);
  for (uint32_t r = 0; r < packed_n(n); ++r) {
    for (uint32_t g = 0; g < groups; ++g) {
      const uint16_t h = r < n ? float_to_half(scales[uint64_t{g} * n + r]) : 0;
      packed[t.scale_byte(r, g)] = static_cast<uint8_t>(h & 0xFF);
      packed[t.scale_byte(r, g) + 1] = static_cast<uint8_t>(h >> 8);
    }
    if (r >= n) continue;
    const uint8_t* row = raw.data() + uint64_t{r} * (k / 2);
    for (uint32_t j = 0; j < k / 2; ++j) packed[t.nibble_byte(r, 2 * j)] = row[j];
  }
  return packed;
}

RawWeights unpack_s16(std::span<const uint8_t> packed, uint32_t n, uint32_t k, uint32_t gs) {
  const S16Tiles t = s16_tiles(n, k, gs, "unpack_s16");
  if (packed.size() != packed_s16_weight_bytes(n, k, gs)) {
    throw std::invalid_argument("unpack_s16: " + std::to_string(packed.size()) +
                                " bytes do not match N=" + std::to_string(n) + " K=" +
                                std::to_string(k) + " group_size=" + std::to_string(gs));
  }
  const uint32_t groups = k / gs;
  RawWeights w{std::vector<uint8_t>(uint64_t{n} * (k / 2)),
               std::vector<float>(uint64_t{groups} * n)};
  for (uint32_t r = 0; r < n; ++r) {
    for (uint32_t g = 0; g < groups; ++g) {
      const uint64_t b = t.scale_byte(r, g);
      w.scales[uint64_t{g} * n + r] = half_to_float(static_cast<uint16_t>(packed[b] | packed[b + 1] << 8));
    }
    uint8_t* row = w.weight.data() + uint64_t{r} * (k / 2);
    for (uint32_t j = 0; j < k / 2; ++j) row[j] = packed[t.nibble_byte(r, 2 * j)];
  }
  return w;
}

std::vector<uint8_t> prepack_weight(Layout layout, std::span<const uint8_t> raw,
                                    std::span<const float> scales, uint32_t n, uint32_t k,
                                    uint32_t gs) {
  switch (layout) {
    case Layout::raw:
      if (raw.size() != uint64_t{n} * (k / 2)) break;
      return {raw.begin(), raw.end()};
    case Layout::packed: return prepack(raw, n, k);
    case Layout::packed_s16: return prepack_s16(raw, scales, n, k, gs);
    case Layout::none:
      throw std::invalid_argument("layout none has no weights to prepack");
  }
  throw std::invalid_argument("raw weight of " + std::to_string(raw.size()) +
                              " bytes does not match N=" + std::to_string(n) +
                              " x K/2 with K=" + std::to_string(k));
}

}  // namespace vktune::kernels
