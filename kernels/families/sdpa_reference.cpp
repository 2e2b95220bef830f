// sdpa's fp64 reference and the per-output bound its error is measured against.
//
// Why the bound: out[d] = sum_j p_j v_j[d] with p = softmax(s), s_j = scale q . k_j. An fp32
// kernel errs in three places, each at most proportional to A[d] = sum_j p_j |v_j[d]|:
//  - a score rounds by up to ~D ulp of S_j = scale sum_i |q_i k_j[i]|; through the softmax an
//    error e_j in the scores moves out[d] by sum_j p_j (e_j - sum_l p_l e_l) v_j[d], at most
//    2 max_j |e_j| A[d];
//  - exp(x) is within 3 + 2|x| ulp (Vulkan's precision), |x| <= 2 max_j S_j, so each p_j is off
//    by that relative error, which moves out[d] by that times A[d];
//  - the softmax sum and the weighted sum over L positions (and the online kernels' rescaling)
//    round like any L-term sum, relative to A[d].
// So bound[d] = A[d] (1 + 2 max_j S_j): the first two terms scale with S, the last with 1, and
// fp32_tolerance (sum length max(L, D)) sets how many ulps of it are honest. A kernel that skips
// one cache position errs by ~p_j |v_j - out| ~ 1/L of A, caught for L up to a few thousand;
// a skipped step, slice or head errs by far more.
//
// f16 (q, both caches and out in fp16; scores, softmax and sums in fp32): the inputs cost
// nothing, because make_random rounds q, K and V to fp16 and this reference reads those very
// values, which the kernels widen to fp32 exactly; from there the arithmetic is the fp32 path's,
// so the bound and fp32_tolerance above stand. What is new is one rounding of each fp32 result
// to fp16 on the store: at most 2^-11 |out[d]| (round to nearest, 11-bit significand), and
// |out[d]| = |sum_j p_j v_j[d]| <= A[d] <= bound[d], so it adds at most 2^-11 of the bound:
// Family::tolerance adds fp16_output_tolerance() = 2^-11 for every f16 problem. It cannot
// overflow (out is a convex combination of fp16 values, so within their range); it can be
// subnormal, where the rounding is up to 2^-25 absolute, still within 2^-11 of the bound while
// A[d] >= 2^-14 -- the gate's random values have |v| >= 2^-10. The price: a kernel skipping one
// cache position (~1/L of A) is caught for L up to about a thousand rather than a few thousand;
// a skipped step, slice or head still errs by far more than 2^-11.
#include <algorithm>
#include <cmath>

#include "kernels/families/reference.h"
#include "kernels/op.h"
#include "kernels/parallel.h"

namespace vktune::kernels {

Reference sdpa_reference(const Problem& p, const ProblemData& d,
                         std::span<const uint32_t> tokens) {
  require_valid(p);
  const uint32_t D = p.k, group = p.heads / p.kv_heads;
  const double scale = 1.0 / std::sqrt(double(D));
  const size_t count = tokens.empty() ? p.m : tokens.size();
  Reference r;
  r.values.assign(count * p.heads * D, 0.0);
  r.bounds.assign(r.values.size(), 0.0);
  // Each (token, head) row on a core of its own: a row at L 32768 takes 4 * L * D fp64 operations,
  // and the gate's 32 tokens of 32 heads took 30-40 s of a tuning run's setup on one core.
  parallel_for(count * p.heads, [&](size_t item) {
    const size_t index = item / p.heads;
    const uint32_t h = static_cast<uint32_t>(item % p.heads);
    const uint32_t t = tokens.empty() ? static_cast<uint32_t>(index) : tokens[index];
    const uint32_t attended = p.n - p.m + t + 1;  // causal: token t sits at position L - M + t
    const uint64_t row = item * D;
    const float* q = d.x.data() + (uint64_t{t} * p.heads + h) * D;
    auto cache = [&](const std::vector<float>& c, uint32_t j) {
      return c.data() + (uint64_t{j} * p.kv_heads + h / group) * D;
    };
    std::vector<double> s(attended);
    double max_s = -INFINITY, max_magnitude = 0;
    for (uint32_t j = 0; j < attended; ++j) {
      const float* k = cache(d.keys, j);
      double dot = 0, abs_dot = 0;
      for (uint32_t i = 0; i < D; ++i) {
        dot += double{q[i]} * k[i];
        abs_dot += std::abs(double{q[i]} * k[i]);
      }
      s[j] = dot * scale;
      max_s = std::max(max_s, s[j]);
      max_magnitude = std::max(max_magnitude, abs_dot * scale);
    }
    double sum = 0;
    for (uint32_t j = 0; j < attended; ++j) sum += (s[j] = std::exp(s[j] - max_s));
    for (uint32_t j = 0; j < attended; ++j) {
      const float* v = cache(d.values, j);
      const double pj = s[j] / sum;
      for (uint32_t i = 0; i < D; ++i) {
        r.values[row + i] += pj * v[i];
        r.bounds[row + i] += pj * std::abs(double{v[i]});
      }
    }
    for (uint32_t i = 0; i < D; ++i) {
      r.bounds[row + i] = r.bounds[row + i] * (1 + 2 * max_magnitude) + 1e-30;
    }
  });
  return r;
}

}  // namespace vktune::kernels
