// binary16 <-> binary32 by bit manipulation.
#include "kernels/float16.h"

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

namespace vktune::kernels {

uint16_t float_to_half(float value) noexcept {
  const uint32_t bits = std::bit_cast<uint32_t>(value);
  const auto sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
  const uint32_t magnitude = bits & 0x7FFFFFFFu;
  if (magnitude > 0x7F800000u) return sign | 0x7E00u;   // NaN
  if (magnitude >= 0x477FF000u) return sign | 0x7C00u;  // >= 65520 rounds past 65504: inf
  if (magnitude < 0x38800000u) {
    // Below 2^-14: a subnormal fp16, a multiple of 2^-24; the product is exact and
    // nearbyint rounds to even in the default rounding mode.
    const float units = std::bit_cast<float>(magnitude) * 0x1p24f;
    return sign | static_cast<uint16_t>(std::nearbyint(units));
  }
  // Rebias the exponent (127 -> 15) and drop 13 mantissa bits, rounding to even; a carry
  // into the exponent is the correct result.
  const uint32_t rebased = magnitude - 0x38000000u;
  uint32_t half = rebased >> 13;
  const uint32_t rest = rebased & 0x1FFFu;
  if (rest > 0x1000u || (rest == 0x1000u && (half & 1u))) ++half;
  return sign | static_cast<uint16_t>(half);
}

float half_to_float(uint16_t half) noexcept {
  const uint32_t sign = uint32_t{half & 0x8000u} << 16;
  const uint32_t exponent = (half >> 10) & 0x1Fu;
  const uint32_t mantissa = half & 0x3FFu;
  if (exponent == 0) {
    const float magnitude = static_cast<float>(mantissa) * 0x1p-24f;
    return sign ? -magnitude : magnitude;
  }
  if (exponent == 31) return std::bit_cast<float>(sign | 0x7F800000u | (mantissa << 13));
  return std::bit_cast<float>(sign | ((exponent + 112) << 23) | (mantissa << 13));
}

std::vector<std::byte> encode(std::span<const float> values, DType dtype) {
  std::vector<std::byte> out(values.size() * dtype_bytes(dtype));
  if (dtype == DType::f32) {
    if (!values.empty()) std::memcpy(out.data(), values.data(), out.size());
    return out;
  }
  for (size_t i = 0; i < values.size(); ++i) {
    const uint16_t h = float_to_half(values[i]);
    std::memcpy(out.data() + 2 * i, &h, 2);
  }
  return out;
}

std::vector<float> decode(std::span<const std::byte> bytes, DType dtype) {
  std::vector<float> out(bytes.size() / dtype_bytes(dtype));
  if (dtype == DType::f32) {
    if (!out.empty()) std::memcpy(out.data(), bytes.data(), out.size() * sizeof(float));
    return out;
  }
  for (size_t i = 0; i < out.size(); ++i) {
    uint16_t h;
    std::memcpy(&h, bytes.data() + 2 * i, 2);
    out[i] = half_to_float(h);
  }
  return out;
}

uint32_t nan_fill_word(DType dtype) noexcept {
  return dtype == DType::f16 ? 0x7E007E00u
                             : std::bit_cast<uint32_t>(std::numeric_limits<float>::quiet_NaN());
}

}  // namespace vktune::kernels
