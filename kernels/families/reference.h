// Host data of a problem: random inputs, the double-precision CPU reference with a per-output
// error bound, and the comparison the correctness gate applies.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "kernels/problem.h"

namespace vktune::kernels {

// Inputs of one problem, in the raw layout (KernelInstance prepacks as the variant needs).
struct ProblemData {
  std::vector<float> x;          // [M, K] (rms_norm: [M, N]; sdpa: the queries [M, heads, D])
  std::vector<uint8_t> weight;   // q4gsw raw [N, K/2]
  std::vector<float> scales;     // q4gsw [K/gs, N]
  std::vector<float> bias;       // q4gsw [N] when has_bias, else empty
  std::vector<float> norm_weight;  // rms_norm w [N]
  std::vector<float> keys, values;  // sdpa K and V cache [L, kv_heads, D]
  std::vector<float> table;         // rope's [L, D/2] (cos, sin) pairs

  // The op's one vector, bound in the BufferRole::vector binding: q4gsw's bias, rms_norm's w
  // or rope's table (the others are empty).
  const std::vector<float>& vector() const noexcept {
    return !bias.empty() ? bias : !norm_weight.empty() ? norm_weight : table;
  }
  // Every float tensor (an f16 problem's are fp16 values).
  std::array<std::vector<float>*, 7> float_tensors() noexcept {
    return {&x, &scales, &bias, &norm_weight, &keys, &values, &table};
  }
};

// Random, never-zero inputs, the same for the same (problem, seed) on every platform:
// x uniform in [-1, 1] (|x| >= 1/1024), q uniform in 0..15, scales in [0.5, 1.5] rounded to
// fp16 for every dtype (the packed_s16 layout stores them so), bias in [-1, 1], rms weight in
// [0.5, 1.5], sdpa q, K and V like x (each op's descriptor draws its own: kernels/ops/). For
// an f16 problem every float (sdpa: q and both caches) is rounded to fp16, so the reference
// computes on exactly what the GPU reads. Throws InvalidProblem for an invalid problem.
ProblemData make_random(const Problem& problem, uint64_t seed);

struct Reference {
  std::vector<double> values;  // [M, N] (sdpa: [M, heads, D])
  // Per output: sum_k |x[m,k] * w(n,k)| + |bias[n]| (rms_norm: |x| / rms * |w| plus the
  // rounding of the mean; sdpa: see sdpa_reference.cpp), the scale errors are measured against.
  std::vector<double> bounds;
};
// The reference of the output rows `rows` (every row when empty), in that order: a gate checks
// a sample of rows. Throws InvalidProblem for an invalid problem.
Reference reference(const Problem& problem, const ProblemData& data,
                    std::span<const uint32_t> rows = {});
// Row n of a q4gsw weight as the kernels read it, w[k] = (q - 8) * scale (w.size() == K): the
// raw layout, low nibble first.
void dequantize_row(const Problem& problem, const ProblemData& data, uint32_t n,
                    std::span<double> w);

struct CheckResult {
  bool ok = false;
  double max_error = 0;  // max |out - ref| / bound (NaN or inf counts as infinite)
  size_t worst = 0;      // index of that output
  size_t non_finite = 0;  // outputs that are NaN or inf (e.g. never written)
};
// ok when every output is finite and within rel_tol * bound of the reference.
CheckResult check(std::span<const float> output, const Reference& ref, double rel_tol);
// The same with a tolerance per output (rel_tols[i] for output i; the sizes must match).
CheckResult check(std::span<const float> output, const Reference& ref,
                  std::span<const double> rel_tols);
// check() of outputs [first, first + output.size()) of `ref` alone (`worst` counts from the
// whole's start): a large output's check split into pieces that run on many cores and are
// merged, in order, into what check() of the whole says. Not ok when the piece overruns `ref`.
CheckResult check_piece(std::span<const float> output, const Reference& ref, double rel_tol,
                        size_t first);
// The result of two adjacent pieces, `a`'s outputs before `b`'s: the larger error (the earlier
// on a tie, as check() keeps the first worst), both ok, the non-finite outputs of both.
CheckResult merge(const CheckResult& a, const CheckResult& b);

// Honest tolerances, relative to the bound:
// fp32 accumulation: rounding errors of a K-term float sum grow like a random walk,
// ~sqrt(K) * 2^-24 * bound, with a worst case of K * 2^-24. 1e-5 at K <= 64 is ~170 ulps of
// the bound; scaling by sqrt(K / 64) keeps that margin for long sums (K = 4096: 8e-5), still far
// below what a wrong kernel produces (a missing group or zero output errs by ~1/sqrt(K) or more).
double fp32_tolerance(const Problem& problem);
// fp16 inputs (x and dequantized weight each rounded to 11 bits, 2^-11 relative) with fp32
// accumulation: each term is off by <= ~1e-3 of its |x w|, so <= 1e-3 of the bound; 2e-3 allows
// for the fp32 sum on top.
double fp16_tolerance(const Problem& problem);
// x rounded to int8 per 32-element block (q4gsw_gemv_i8dot): x_k becomes q_k * d with
// d = max|x in the block| / 127, off by e_k, |e_k| <= d / 2 <= 1 / 254 (make_random's |x| <= 1).
// The output is off by sum_k e_k w_k. Its worst case relative to the bound sum_k |x_k w_k| has
// no limit (an x_k much smaller than its block's max is rounded away entirely), so, as for
// fp32_tolerance, the bound is statistical, over the inputs the gate uses (make_random): the
// e_k are independent of each other and of w, uniform on [-d/2, d/2] (variance d^2/12), so
// the error's standard deviation is at most sqrt(sum_k w_k^2) / (127 sqrt(12)); with |x|
// uniform on [0, 1] (E|x| = 1/2) and w = (q - 8) * s (q uniform on 0..15, E|q - 8| = 4,
// E(q - 8)^2 = 21.5; s uniform on [0.5, 1.5], E s = 1, E s^2 = 13/12) the bound is ~ K * 2 and
// sqrt(sum w^2) ~ sqrt(K * 23.3), so sd / bound ~ 0.0055 / sqrt(K). Eight of those: the worst
// of 10^7 outputs stays below ~5.5 (a simulation of 20000 outputs a K in 32..4096 saw at most
// 3.7), and a wrong block (a swapped nibble half, a lost scale) errs by far more.
double int8_activation_tolerance(const Problem& problem);
// The same eight standard deviations for given inputs instead of make_random's: per output of
// y = W x (`problem`'s q4gsw shape, `x` [rows, K] as the kernel reads it, `data`'s raw weight
// and scales, `ref` the reference of those rows), sqrt(sum_k w_k^2 d_b(k)^2 / 12) over the
// output's bound, d_b(k) the max |x| of k's block / 127. Activations between a model's layers
// are not uniform: after silu * up a block's max is many times its typical |x|, and rounding
// them to int8 errs by more, relative to the bound, than the gate's inputs ever do.
std::vector<double> int8_rounding_tolerance(const Problem& problem, std::span<const double> x,
                                            const ProblemData& data, const Reference& ref);
// What storing an output as fp16 adds (dtype f16): one rounding of the fp32 result, at most
// 2^-11 of |out|, and |out| <= bound (the bound sums the magnitudes that make up out). The
// inputs cost nothing: the reference reads the same fp16-rounded x, scales, bias and w.
double fp16_output_tolerance();

// reference() of an sdpa problem (sdpa_reference.cpp, where its bound is derived), of the
// given tokens only (rows [tokens.size(), heads, D], each at its own cache position) or all.
Reference sdpa_reference(const Problem& problem, const ProblemData& data,
                         std::span<const uint32_t> tokens = {});

}  // namespace vktune::kernels
