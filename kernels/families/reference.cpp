// Random inputs, fp64 reference and checking.
#include "kernels/families/reference.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "kernels/float16.h"
#include "kernels/op.h"
#include "kernels/random.h"

namespace vktune::kernels {
namespace {

// Rounds every float input of `d` to fp16 (f16 problems).
void round_inputs_to_half(ProblemData& d) {
  for (std::vector<float>* v : d.float_tensors()) {
    for (float& e : *v) e = round_to_half(e);
  }
}

}  // namespace

ProblemData make_random(const Problem& p, uint64_t seed) {
  require_valid(p);
  Rng rng{seed * 0x2545F4914F6CDD1Dull + 0x1234567ull};
  ProblemData d = op_descriptor(p.op).random_inputs(p, rng);
  if (p.dtype == DType::f16) round_inputs_to_half(d);
  return d;
}

Reference reference(const Problem& p, const ProblemData& d, std::span<const uint32_t> rows) {
  require_valid(p);
  return op_descriptor(p.op).reference(p, d, rows);
}

namespace {

// check() of outputs [first, first + out.size()) with output i's tolerance tol(i).
template <typename Tolerance>
CheckResult check_each(std::span<const float> out, const Reference& ref, size_t first,
                       const Tolerance& tol) {
  CheckResult c;
  if (first > ref.values.size() || out.size() > ref.values.size() - first) {
    c.max_error = INFINITY;
    return c;
  }
  bool within = true;
  for (size_t j = 0; j < out.size(); ++j) {
    const size_t i = first + j;
    double e = std::isfinite(out[j]) ? std::abs(out[j] - ref.values[i]) / ref.bounds[i] : INFINITY;
    if (!std::isfinite(out[j])) ++c.non_finite;
    within = within && e <= tol(i);
    if (j == 0 || e > c.max_error) {
      c.max_error = e;
      c.worst = i;
    }
  }
  c.ok = c.non_finite == 0 && within;
  return c;
}

}  // namespace

void dequantize_row(const Problem& p, const ProblemData& d, uint32_t n, std::span<double> w) {
  const uint8_t* row = d.weight.data() + uint64_t{n} * (p.k / 2);
  for (uint32_t k = 0; k < p.k; ++k) {
    const int q = (row[k / 2] >> (4 * (k % 2))) & 0xF;
    w[k] = (q - 8) * double{d.scales[uint64_t{k / p.group_size} * p.n + n]};
  }
}

CheckResult check(std::span<const float> out, const Reference& ref, double rel_tol) {
  if (out.size() != ref.values.size()) return {.max_error = INFINITY};
  return check_piece(out, ref, rel_tol, 0);
}

CheckResult check_piece(std::span<const float> out, const Reference& ref, double rel_tol,
                        size_t first) {
  return check_each(out, ref, first, [rel_tol](size_t) { return rel_tol; });
}

CheckResult merge(const CheckResult& a, const CheckResult& b) {
  CheckResult c = b.max_error > a.max_error ? b : a;  // a tie keeps the earlier output
  c.ok = a.ok && b.ok;
  c.non_finite = a.non_finite + b.non_finite;
  return c;
}

CheckResult check(std::span<const float> out, const Reference& ref,
                  std::span<const double> rel_tols) {
  if (rel_tols.size() != ref.values.size()) {
    throw std::invalid_argument("check: one tolerance per output");
  }
  if (out.size() != ref.values.size()) return {.max_error = INFINITY};
  return check_each(out, ref, 0, [rel_tols](size_t i) { return rel_tols[i]; });
}

double fp32_tolerance(const Problem& p) {
  const double k = op_descriptor(p.op).longest_sum(p);
  return 1e-5 * std::max(1.0, std::sqrt(k / 64.0));
}

double fp16_tolerance(const Problem&) { return 2e-3; }

double int8_activation_tolerance(const Problem& p) {
  // The standard deviation of the error relative to the bound, times sqrt(K) (reference.h).
  const double e_abs_x = 0.5, e_abs_w = 4.0, e_w2 = 21.5 * 13.0 / 12.0;
  const double sd_sqrt_k = std::sqrt(e_w2) / (127.0 * std::sqrt(12.0) * e_abs_x * e_abs_w);
  return 8.0 * sd_sqrt_k / std::sqrt(static_cast<double>(p.k));
}

std::vector<double> int8_rounding_tolerance(const Problem& p, std::span<const double> x,
                                            const ProblemData& d, const Reference& ref) {
  const size_t rows = x.size() / p.k;
  if (p.op.name() != "q4gsw" || p.k % 32 != 0 || x.size() != rows * p.k ||
      ref.bounds.size() != rows * p.n) {
    throw std::invalid_argument("int8_rounding_tolerance: x or the reference is not the shape's");
  }
  // Each element's rounding variance, d_b^2 / 12, by row and k.
  std::vector<double> variance(x.size());
  for (size_t b = 0; b < x.size(); b += 32) {
    double amax = 0;
    for (size_t i = b; i < b + 32; ++i) amax = std::max(amax, std::abs(x[i]));
    const double step = amax / 127.0;
    std::fill(variance.begin() + b, variance.begin() + b + 32, step * step / 12.0);
  }
  std::vector<double> tol(rows * p.n);
  std::vector<double> w2(p.k);
  for (uint32_t n = 0; n < p.n; ++n) {
    dequantize_row(p, d, n, w2);
    for (double& w : w2) w *= w;
    for (size_t r = 0; r < rows; ++r) {
      double sum = 0;
      for (uint32_t k = 0; k < p.k; ++k) sum += w2[k] * variance[r * p.k + k];
      tol[r * p.n + n] = 8.0 * std::sqrt(sum) / ref.bounds[r * p.n + n];
    }
  }
  return tol;
}

double fp16_output_tolerance() { return 0x1p-11; }

}  // namespace vktune::kernels
