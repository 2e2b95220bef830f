// fp16 on the host: the conversions the CPU side of an f16 problem needs (random inputs rounded
// to fp16, uploads, read-backs), bit-exact IEEE binary16 with round-to-nearest-even, so no
// compiler's _Float16 support is assumed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "kernels/problem.h"

namespace vktune::kernels {

// The nearest binary16 (ties to even); past the fp16 range: inf; NaN stays NaN.
uint16_t float_to_half(float value) noexcept;
// Exact: every binary16 is a float.
float half_to_float(uint16_t half) noexcept;
// `value` rounded to the nearest fp16, as a float.
inline float round_to_half(float value) noexcept { return half_to_float(float_to_half(value)); }

// `values` as a buffer of `dtype` elements (fp16: rounded to nearest even).
std::vector<std::byte> encode(std::span<const float> values, DType dtype);
// A buffer of `dtype` elements as floats; a trailing partial element is ignored.
std::vector<float> decode(std::span<const std::byte> bytes, DType dtype);
// A 32-bit fill pattern whose every element of `dtype` is a quiet NaN (vkCmdFillBuffer).
uint32_t nan_fill_word(DType dtype) noexcept;

}  // namespace vktune::kernels
