// Unit tests of host data: random inputs, the fp64 reference, check(), and the packed layout.
#include "kernels/families/reference.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <stdexcept>
#include <tuple>

#include "kernels/families/q4gsw_layout.h"
#include "kernels/family.h"

namespace vktune::kernels {
namespace {

TEST(Prepack, RoundTripsAndPads) {
  for (auto [n, k] : {std::pair{37u, 96u}, {8u, 32u}, {5u, 10u}, {100u, 2080u}, {1u, 2u}}) {
    const Problem p{Op("q4gsw"), 1, n, k, 2, false};
    const ProblemData d = make_random(p, n * 7 + k);
    const std::vector<uint8_t> packed = prepack(d.weight, n, k);
    EXPECT_EQ(packed.size(), packed_weight_bytes(n, k));
    EXPECT_EQ(packed.size() % 16, 0u);
    EXPECT_EQ(unpack(packed, n, k), d.weight) << "N=" << n << " K=" << k;
  }
  EXPECT_THROW(prepack(std::vector<uint8_t>(10), 3, 8), std::invalid_argument);
}

TEST(Prepack, BlockOrderIsAsDocumented) {
  // N=9, K=64: Np=16, two k-blocks. Nibble (n, k) lives in block (k/32)*16 + n, byte (k%32)/2.
  const uint32_t n = 9, k = 64;
  std::vector<uint8_t> raw(n * k / 2);
  for (size_t i = 0; i < raw.size(); ++i) raw[i] = static_cast<uint8_t>(i * 37 + 11);
  const std::vector<uint8_t> packed = prepack(raw, n, k);
  const uint32_t row = 3, kk = 45;  // block 1 * 16 + 3, byte 6, high nibble
  const int want = (raw[row * k / 2 + kk / 2] >> 4) & 15;
  EXPECT_EQ((packed[(1 * 16 + row) * 16 + (kk % 32) / 2] >> 4) & 15, want);
  EXPECT_EQ(packed[(0 * 16 + 12) * 16], 0x88);  // padding row: q = 8, weight 0
}

TEST(PrepackS16, RoundTripsWithFp16Scales) {
  // Ragged N (not a multiple of 8), one and several blocks per group.
  for (auto [n, k, gs] : {std::tuple{37u, 96u, 32u}, {8u, 32u, 32u}, {13u, 256u, 128u},
                          {1u, 128u, 64u}, {100u, 2048u, 32u}}) {
    const Problem p{Op("q4gsw"), 1, n, k, gs, false};
    const ProblemData d = make_random(p, n * 7 + k);
    const std::vector<uint8_t> packed = prepack_s16(d.weight, d.scales, n, k, gs);
    EXPECT_EQ(packed.size(), packed_s16_weight_bytes(n, k, gs));
    EXPECT_EQ(packed.size() % 16, 0u);
    // The weight holds 2 bytes per (group, output) on top of the packed blocks, no padding.
    EXPECT_EQ(packed.size(), packed_weight_bytes(n, k) + uint64_t{k / gs} * packed_n(n) * 2);
    const RawWeights back = unpack_s16(packed, n, k, gs);
    EXPECT_EQ(back.weight, d.weight) << "N=" << n << " K=" << k << " gs=" << gs;
    // The random scales are fp16 values already, so the layout keeps them exactly.
    EXPECT_EQ(back.scales, d.scales) << "N=" << n << " K=" << k << " gs=" << gs;
  }
  const std::vector<uint8_t> raw(8 * 16);
  EXPECT_THROW(prepack_s16(raw, std::vector<float>(8), 8, 32, 16), std::invalid_argument);  // gs
  EXPECT_THROW(prepack_s16(raw, std::vector<float>(7), 8, 32, 32), std::invalid_argument);  // count
  // Scales that are not fp16 values come back rounded to nearest.
  const std::vector<float> odd(8, 1.0f + 0x1p-12f);
  EXPECT_EQ(unpack_s16(prepack_s16(raw, odd, 8, 32, 32), 8, 32, 32).scales,
            std::vector<float>(8, 1.0f));
}

TEST(PrepackS16, TileOrderIsAsDocumented) {
  // N=9 (Np=16, two octets), K=128, gs=64: d=2 blocks per group, tiles of 17 uvec4s at
  // (g * 2 + n/8) * 17. Nibble (n, k): block (k/32) % 2, slot n % 8; scale after 16 blocks.
  const uint32_t n = 9, k = 128, gs = 64;
  std::vector<uint8_t> raw(n * k / 2);
  for (size_t i = 0; i < raw.size(); ++i) raw[i] = static_cast<uint8_t>(i * 37 + 11);
  std::vector<float> scales(k / gs * n);
  for (size_t i = 0; i < scales.size(); ++i) scales[i] = static_cast<float>(i + 1);
  const std::vector<uint8_t> packed = prepack_s16(raw, scales, n, k, gs);
  const uint32_t row = 8, kk = 101;  // group 1, octet 1: tile 3; block 3 % 2 = 1, slot 0
  const size_t tile = 3 * 17 * 16;
  EXPECT_EQ((packed[tile + (1 * 8 + 0) * 16 + (kk % 32) / 2] >> 4) & 15,
            (raw[row * k / 2 + kk / 2] >> 4) & 15);
  // Scale (n=8, g=1) = scales[1 * 9 + 8] = 18 = 0x4C80 in fp16, at the tile's word 16, slot 0.
  EXPECT_EQ(packed[tile + 16 * 16], 0x80);
  EXPECT_EQ(packed[tile + 16 * 16 + 1], 0x4C);
  EXPECT_EQ(packed[tile + 16 * 16 + 2], 0x00);  // n = 9: padding, scale 0
  EXPECT_EQ(packed[tile + (0 * 8 + 1) * 16], 0x88);  // padding nibbles: q = 8
}

TEST(Random, NeverZeroAndReproducible) {
  const Problem p{Op("q4gsw"), 3, 37, 96, 32, true};
  const ProblemData a = make_random(p, 42), b = make_random(p, 42), c = make_random(p, 43);
  EXPECT_EQ(a.x, b.x);
  EXPECT_NE(a.x, c.x);
  for (float v : a.x) ASSERT_NE(v, 0.0f);
  for (float v : a.bias) ASSERT_NE(v, 0.0f);
  for (float v : a.scales) ASSERT_GE(v, 0.5f);
  EXPECT_EQ(a.x.size(), 3u * 96);
  EXPECT_EQ(a.weight.size(), 37u * 48);
  EXPECT_EQ(a.scales.size(), 3u * 37);
  EXPECT_EQ(a.bias.size(), 37u);
}

TEST(Reference, MatchesAHandComputedOutput) {
  const Problem p{Op("q4gsw"), 1, 1, 4, 2, true};
  ProblemData d;
  d.x = {1.0f, -2.0f, 0.5f, 4.0f};
  d.weight = {0x3A, 0x08};   // q = 10, 3, 8, 0
  d.scales = {0.5f, 2.0f};   // group 0: k 0..1, group 1: k 2..3
  d.bias = {0.25f};
  // 1*(2)*0.5 + -2*(-5)*0.5 + 0.5*0*2 + 4*(-8)*2 + 0.25 = 1 + 5 + 0 - 64 + 0.25
  const Reference r = reference(p, d);
  EXPECT_DOUBLE_EQ(r.values[0], -57.75);
  EXPECT_DOUBLE_EQ(r.bounds[0], 1 + 5 + 0 + 64 + 0.25 + 1e-30);
}

// q4gsw's reference sums several rows at once; each row's values and bounds are still exactly
// those of the row computed alone.
TEST(Reference, EachRowIsWhatItsRowAloneGives) {
  const Problem p{Op("q4gsw"), 7, 37, 96, 32, true};
  const ProblemData d = make_random(p, 5);
  const Reference all = reference(p, d);
  for (uint32_t m = 0; m < p.m; ++m) {
    const uint32_t row[] = {m};
    const Reference alone = reference(p, d, row);
    for (uint32_t n = 0; n < p.n; ++n) {
      ASSERT_EQ(all.values[m * p.n + n], alone.values[n]) << "row " << m << " output " << n;
      ASSERT_EQ(all.bounds[m * p.n + n], alone.bounds[n]) << "row " << m << " output " << n;
    }
  }
}

TEST(Reference, RmsNorm) {
  const Problem p{Op("rms_norm"), 1, 2, 0, 0, false, 0.0f};
  ProblemData d;
  d.x = {3.0f, 4.0f};
  d.norm_weight = {1.0f, 2.0f};
  const Reference r = reference(p, d);  // rms = sqrt(12.5)
  EXPECT_NEAR(r.values[0], 3.0 / std::sqrt(12.5), 1e-12);
  EXPECT_NEAR(r.values[1], 8.0 / std::sqrt(12.5), 1e-12);
}

TEST(Check, CatchesNaNZerosAndSmallErrors) {
  const Problem p{Op("q4gsw"), 2, 37, 64, 32, false};
  const ProblemData d = make_random(p, 1);
  const Reference r = reference(p, d);
  std::vector<float> exact(r.values.begin(), r.values.end());
  const double tol = fp32_tolerance(p);
  EXPECT_TRUE(check(exact, r, tol).ok);
  std::vector<float> zeros(exact.size(), 0.0f);
  EXPECT_FALSE(check(zeros, r, tol).ok);
  std::vector<float> nan = exact;
  nan[5] = std::numeric_limits<float>::quiet_NaN();
  const CheckResult c = check(nan, r, tol);
  EXPECT_FALSE(c.ok);
  EXPECT_EQ(c.worst, 5u);
  EXPECT_EQ(c.non_finite, 1u);
  std::vector<float> off = exact;
  off[7] += static_cast<float>(r.bounds[7] * 1e-3);
  const CheckResult o = check(off, r, tol);
  EXPECT_FALSE(o.ok);
  EXPECT_EQ(o.worst, 7u);
  EXPECT_FALSE(check(std::vector<float>(3), r, tol).ok);
}

// Pieces of any size merged in order say what one check of the whole says: the same error,
// worst output (the first of a tie), non-finite count and verdict.
TEST(Check, PiecesMergedAreTheWholeCheck) {
  const Problem p{Op("q4gsw"), 3, 41, 64, 32, false};
  const Reference r = reference(p, make_random(p, 2));
  const double tol = fp32_tolerance(p);
  std::vector<float> exact(r.values.begin(), r.values.end());
  std::vector<float> broken = exact;
  broken[17] = std::numeric_limits<float>::quiet_NaN();
  broken[90] = std::numeric_limits<float>::infinity();  // ties 17's infinite error: 17 is worst
  broken[50] += static_cast<float>(r.bounds[50] * 1e-3);
  for (const std::vector<float>* out : {&exact, &broken}) {
    const CheckResult whole = check(*out, r, tol);
    for (size_t size : {1u, 7u, 40u, 123u}) {
      const std::span<const float> whole_span(*out);
      CheckResult merged = check_piece(whole_span.first(std::min(size, out->size())), r, tol, 0);
      for (size_t first = size; first < out->size(); first += size) {
        const size_t n = std::min(size, out->size() - first);
        merged = merge(merged, check_piece(std::span(*out).subspan(first, n), r, tol, first));
      }
      EXPECT_EQ(merged.ok, whole.ok) << size;
      EXPECT_EQ(merged.max_error, whole.max_error) << size;
      EXPECT_EQ(merged.worst, whole.worst) << size;
      EXPECT_EQ(merged.non_finite, whole.non_finite) << size;
    }
  }
  EXPECT_EQ(check(broken, r, tol).worst, 17u);
  EXPECT_EQ(check(broken, r, tol).non_finite, 2u);
  EXPECT_FALSE(check_piece(exact, r, tol, 1).ok);  // runs past the reference's end
}

TEST(Check, TakesATolerancePerOutput) {
  const Reference ref{{1.0, 2.0}, {1.0, 1.0}};
  const std::vector<float> out{1.1f, 2.0f};
  EXPECT_FALSE(check(out, ref, std::vector<double>{0.05, 0.2}).ok);
  EXPECT_TRUE(check(out, ref, std::vector<double>{0.2, 0.0}).ok);
  EXPECT_THROW(check(out, ref, std::vector<double>{0.2}), std::invalid_argument);
}

// x as q4gsw_gemv_i8dot multiplies it: per 32-element block, q * max|x| / 127 with q the
// rounded x * 127 / max|x|.
std::vector<float> rounded_to_int8_blocks(const std::vector<float>& x) {
  std::vector<float> out(x.size());
  for (size_t b = 0; b < x.size(); b += 32) {
    float amax = 0;
    for (size_t i = b; i < b + 32; ++i) amax = std::max(amax, std::abs(x[i]));
    for (size_t i = b; i < b + 32; ++i) {
      out[i] = amax > 0 ? static_cast<float>(std::round(x[i] / amax * 127.0) * amax / 127.0) : 0;
    }
  }
  return out;
}

// The int8 rounding's error relative to each output's bound, and its tolerance for these
// inputs from the i8dot family.
struct Int8Case {
  std::vector<double> error, tolerance;
  double gate_tolerance = 0;
};
Int8Case int8_case(const Problem& p, const ProblemData& d) {
  ProblemData rounded = d;
  rounded.x = rounded_to_int8_blocks(d.x);
  const Reference exact = reference(p, d), off = reference(p, rounded);
  Int8Case c;
  for (size_t i = 0; i < exact.values.size(); ++i) {
    c.error.push_back(std::abs(off.values[i] - exact.values[i]) / exact.bounds[i]);
  }
  const Family& i8dot = *find_family("q4gsw_gemv_i8dot");
  c.tolerance = i8dot.tolerance_on(p, std::vector<double>(d.x.begin(), d.x.end()), d, exact);
  c.gate_tolerance = i8dot.tolerance(p);
  return c;
}

// On the gate's inputs (|x| uniform) the tolerance for the inputs is the gate's, within the
// spread of a block's max; on layer-like activations (one element of each block far above the
// rest, as after silu * up) the rounding errs past the gate's tolerance and within the one
// computed for those inputs.
TEST(Int8RoundingTolerance, IsTheGatesOnUniformInputsAndHoldsForHeavyTailedOnes) {
  const Problem p{Op("q4gsw"), 4, 512, 4096, 32, false};
  ProblemData d = make_random(p, 5);
  Int8Case uniform = int8_case(p, d);
  for (size_t i = 0; i < uniform.tolerance.size(); ++i) {
    EXPECT_NEAR(uniform.tolerance[i] / uniform.gate_tolerance, 1.0, 0.25) << "output " << i;
    EXPECT_LE(uniform.error[i], uniform.tolerance[i]) << "output " << i;
  }
  for (size_t i = 0; i < d.x.size(); i += 32) d.x[i + 7] *= 40.0f;
  Int8Case tailed = int8_case(p, d);
  const double worst = *std::max_element(tailed.error.begin(), tailed.error.end());
  std::printf("heavy-tailed x: worst error %.2f of the gate's tolerance, tolerance %.2f of it\n",
              worst / tailed.gate_tolerance,
              *std::min_element(tailed.tolerance.begin(), tailed.tolerance.end()) /
                  tailed.gate_tolerance);
  EXPECT_GT(worst, tailed.gate_tolerance);
  for (size_t i = 0; i < tailed.tolerance.size(); ++i) {
    EXPECT_LE(tailed.error[i], tailed.tolerance[i]) << "output " << i;
  }
  // A family without x's rounding keeps one tolerance for any inputs.
  const Family& fp32 = *find_family("q4gsw_gemv_fast");
  const std::vector<double> same = fp32.tolerance_on(p, {}, d, reference(p, d));
  EXPECT_EQ(same, std::vector<double>(same.size(), fp32.tolerance(p)));
}

}  // namespace
}  // namespace vktune::kernels
