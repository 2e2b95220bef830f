// Random inputs, fp64 reference and checking.
#include "kernels/families/reference.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <thread>

#include "kernels/float16.h"
#include "kernels/op.h"

namespace vktune::kernels {
namespace {

// splitmix64: portable, unlike the std distributions.
struct Rng {
  uint64_t state;
  uint64_t next() {
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  double unit() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }  // [0, 1)
  float uniform(float lo, float hi) { return lo + static_cast<float>(unit()) * (hi - lo); }
  float signed_nonzero() {  // [-1, 1] with |v| >= 1/1024
    float v = uniform(1.0f / 1024, 1.0f);
    return (next() & 1) ? v : -v;
  }
};

// Rounds every float input of `d` to fp16 (f16 problems).
void round_inputs_to_half(ProblemData& d) {
  for (std::vector<float>* v : {&d.x, &d.scales, &d.bias, &d.norm_weight, &d.keys, &d.values}) {
    for (float& e : *v) e = round_to_half(e);
  }
}

ProblemData random_f32(const Problem& p, uint64_t seed) {
  Rng rng{seed * 0x2545F4914F6CDD1Dull + 0x1234567ull};
  ProblemData d;
  if (p.op == Op::sdpa) {
    d.x.resize(output_count(p));
    d.keys.resize(binding_sizes(p, Layout::none).keys / dtype_bytes(p.dtype));
    d.values.resize(d.keys.size());
    for (auto* tensor : {&d.x, &d.keys, &d.values}) {
      for (float& v : *tensor) v = rng.signed_nonzero();
    }
    return d;
  }
  if (p.op == Op::rms_norm) {
    d.x.resize(uint64_t{p.m} * p.n);
    for (float& v : d.x) v = rng.signed_nonzero();
    d.norm_weight.resize(p.n);
    for (float& v : d.norm_weight) v = rng.uniform(0.5f, 1.5f);
    return d;
  }
  d.x.resize(uint64_t{p.m} * p.k);
  for (float& v : d.x) v = rng.signed_nonzero();
  d.weight.resize(uint64_t{p.n} * (p.k / 2));
  for (uint8_t& b : d.weight) b = static_cast<uint8_t>(rng.next() & 0xFF);
  d.scales.resize(uint64_t{p.k / p.group_size} * p.n);
  // fp16 values for every dtype: the packed_s16 layout stores scales as fp16 (what engines
  // ship for symmetric int4), so the reference reads exactly the scale every layout holds.
  for (float& v : d.scales) v = round_to_half(rng.uniform(0.5f, 1.5f));
  if (p.has_bias) {
    d.bias.resize(p.n);
    for (float& v : d.bias) v = rng.signed_nonzero();
  }
  return d;
}

}  // namespace

ProblemData make_random(const Problem& p, uint64_t seed) {
  require_valid(p);
  ProblemData d = random_f32(p, seed);
  if (p.dtype == DType::f16) round_inputs_to_half(d);
  return d;
}

Reference reference(const Problem& p, const ProblemData& d) {
  require_valid(p);
  if (p.op == Op::sdpa) return sdpa_reference(p, d);
  Reference r;
  r.values.assign(uint64_t{p.m} * p.n, 0.0);
  r.bounds.assign(r.values.size(), 0.0);
  if (p.op == Op::rms_norm) {
    for (uint32_t m = 0; m < p.m; ++m) {
      const float* x = d.x.data() + uint64_t{m} * p.n;
      double sum = 0;
      for (uint32_t i = 0; i < p.n; ++i) sum += double{x[i]} * x[i];
      const double inv = 1.0 / std::sqrt(sum / p.n + p.eps);
      for (uint32_t i = 0; i < p.n; ++i) {
        const double y = x[i] * inv * d.norm_weight[i];
        r.values[uint64_t{m} * p.n + i] = y;
        r.bounds[uint64_t{m} * p.n + i] = std::abs(y) + 1e-30;
      }
    }
    return r;
  }
  // Output features are independent: split them over the cores (the H100 host's 16 make a
  // 128 x 128256 x 4096 reference take seconds, not a minute).
  auto features = [&](uint32_t begin, uint32_t end) {
    std::vector<double> w(p.k), aw(p.k);
    for (uint32_t n = begin; n < end; ++n) {
      dequantize_row(p, d, n, w);
      for (uint32_t k = 0; k < p.k; ++k) aw[k] = std::abs(w[k]);
      const double b = p.has_bias ? d.bias[n] : 0.0;
      for (uint32_t m = 0; m < p.m; ++m) {
        const float* x = d.x.data() + uint64_t{m} * p.k;
        double sum = b, bound = std::abs(b);
        for (uint32_t k = 0; k < p.k; ++k) {
          sum += x[k] * w[k];
          bound += std::abs(x[k]) * aw[k];
        }
        r.values[uint64_t{m} * p.n + n] = sum;
        r.bounds[uint64_t{m} * p.n + n] = bound + 1e-30;
      }
    }
  };
  const uint64_t work = uint64_t{p.m} * p.n * p.k;
  const uint32_t threads =
      work < (1u << 22) ? 1u : std::min(std::max(1u, std::thread::hardware_concurrency()), p.n);
  std::vector<std::thread> pool;
  for (uint32_t t = 1; t < threads; ++t) {
    pool.emplace_back(features, uint64_t{p.n} * t / threads, uint64_t{p.n} * (t + 1) / threads);
  }
  features(0, p.n / threads);
  for (std::thread& t : pool) t.join();
  return r;
}

namespace {

// check() with output i's tolerance tol(i).
template <typename Tolerance>
CheckResult check_each(std::span<const float> out, const Reference& ref, const Tolerance& tol) {
  CheckResult c;
  if (out.size() != ref.values.size()) {
    c.max_error = INFINITY;
    return c;
  }
  bool within = true;
  for (size_t i = 0; i < out.size(); ++i) {
    double e = std::isfinite(out[i]) ? std::abs(out[i] - ref.values[i]) / ref.bounds[i] : INFINITY;
    if (!std::isfinite(out[i])) ++c.non_finite;
    within = within && e <= tol(i);
    if (i == 0 || e > c.max_error) {
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
  return check_each(out, ref, [rel_tol](size_t) { return rel_tol; });
}

CheckResult check(std::span<const float> out, const Reference& ref,
                  std::span<const double> rel_tols) {
  if (rel_tols.size() != ref.values.size()) {
    throw std::invalid_argument("check: one tolerance per output");
  }
  return check_each(out, ref, [rel_tols](size_t i) { return rel_tols[i]; });
}

double fp32_tolerance(const Problem& p) {
  const double k = p.op == Op::rms_norm ? p.n : p.op == Op::sdpa ? std::max(p.n, p.k) : p.k;
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
  if (p.op != Op::q4gsw || p.k % 32 != 0 || x.size() != rows * p.k ||
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
