// The host's fp16 conversions against known binary16 encodings, and f16 problem data.
#include "kernels/float16.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "kernels/families/reference.h"

namespace vktune::kernels {
namespace {

TEST(Float16, KnownEncodings) {
  EXPECT_EQ(float_to_half(0.0f), 0x0000u);
  EXPECT_EQ(float_to_half(-0.0f), 0x8000u);
  EXPECT_EQ(float_to_half(1.0f), 0x3C00u);
  EXPECT_EQ(float_to_half(-2.0f), 0xC000u);
  EXPECT_EQ(float_to_half(65504.0f), 0x7BFFu);         // the largest finite fp16
  EXPECT_EQ(float_to_half(65519.0f), 0x7BFFu);         // rounds down to it
  EXPECT_EQ(float_to_half(65520.0f), 0x7C00u);         // the tie rounds to even: inf
  EXPECT_EQ(float_to_half(0x1p-14f), 0x0400u);         // the smallest normal
  EXPECT_EQ(float_to_half(0x1p-24f), 0x0001u);         // the smallest subnormal
  EXPECT_EQ(float_to_half(0x1p-25f), 0x0000u);         // a tie below it: to even, zero
  EXPECT_EQ(float_to_half(1.0f + 0x1p-11f), 0x3C00u);  // tie between 1 and 1+2^-10: even
  EXPECT_EQ(float_to_half(1.0f + 0x1.8p-11f), 0x3C01u);
  EXPECT_EQ(float_to_half(1.0f + 3 * 0x1p-11f), 0x3C02u);  // tie, odd below: up
  EXPECT_EQ(float_to_half(std::numeric_limits<float>::infinity()), 0x7C00u);
  EXPECT_TRUE(std::isnan(half_to_float(float_to_half(std::nanf("")))));
}

TEST(Float16, EveryHalfRoundTrips) {
  for (uint32_t h = 0; h < 0x10000u; ++h) {
    const float f = half_to_float(static_cast<uint16_t>(h));
    if (std::isnan(f)) continue;
    ASSERT_EQ(float_to_half(f), h) << std::hex << h;
  }
}

TEST(Float16, EncodeDecodeByDtype) {
  const std::vector<float> values = {1.0f, -0.5f, 0.1f};
  EXPECT_EQ(encode(values, DType::f32).size(), 12u);
  EXPECT_EQ(decode(encode(values, DType::f32), DType::f32), values);
  const std::vector<std::byte> half = encode(values, DType::f16);
  ASSERT_EQ(half.size(), 6u);
  const std::vector<float> back = decode(half, DType::f16);
  EXPECT_EQ(back[0], 1.0f);
  EXPECT_EQ(back[1], -0.5f);
  EXPECT_EQ(back[2], round_to_half(0.1f));
  EXPECT_NE(back[2], 0.1f);
  const uint32_t nan = nan_fill_word(DType::f16);
  EXPECT_TRUE(std::isnan(half_to_float(static_cast<uint16_t>(nan))));
  EXPECT_TRUE(std::isnan(half_to_float(static_cast<uint16_t>(nan >> 16))));
}

// An f16 problem's inputs are already fp16 values, so the reference computes on exactly what
// the GPU reads; the int4 weights are the f32 problem's.
TEST(Float16, F16ProblemDataIsRoundedToHalf) {
  Problem p{Op("q4gsw"), 2, 37, 64, 32, true};
  const ProblemData f32 = make_random(p, 3);
  p.dtype = DType::f16;
  const ProblemData f16 = make_random(p, 3);
  EXPECT_EQ(f16.weight, f32.weight);
  for (size_t i = 0; i < f16.x.size(); ++i) {
    ASSERT_EQ(f16.x[i], round_to_half(f32.x[i]));
  }
  for (const std::vector<float>* v : {&f16.scales, &f16.bias}) {
    for (float e : *v) ASSERT_EQ(e, round_to_half(e));
  }
}

}  // namespace
}  // namespace vktune::kernels
