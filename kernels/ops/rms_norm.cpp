// rms_norm: y[r, i] = x[r, i] / sqrt(mean_i(x[r, :]^2) + eps) * w[i], rows M, width N (K is N).
#include <cmath>

#include "kernels/builtin_variants.h"
#include "kernels/ops/ops.h"
#include "kernels/random.h"

namespace vktune::kernels {
// Named, so its validate() and flops() hide kernels::validate() and kernels::flops().
namespace rms_norm_op {
namespace {

// K is the width: given, it must equal N (validate() says so).
constexpr EntryKey kEntryKeys[] = {{"n", EntryField::n, true, false},
                                   {"k", EntryField::k, false, false}};

constexpr BindingDesc kBindings[] = {
    {BufferRole::x, "x", false}, {BufferRole::vector, "w", false}, {BufferRole::out, "out", true}};

constexpr BuiltinVariant kBuiltins[] = {
    {"rms_norm", R"({"vec":4,"wg":256})"},
    {"rms_norm", R"({"vec":1,"wg":256})"},
};

// K is the width: a problem may leave it 0. There are no groups.
Problem with_defaults(Problem p) noexcept {
  if (p.k == 0) p.k = p.n;
  p.group_size = 0;
  return p;
}

std::string validate(const Problem& p) {
  if (std::string e = rows_shape_error(p); !e.empty()) return e;
  if (p.k != 0 && p.k != p.n) {
    return "K=" + std::to_string(p.k) + " differs from the width N=" + std::to_string(p.n) +
           "; rms_norm takes K=0 or K=N";
  }
  if (p.has_bias) return "rms_norm has no bias; set has_bias=false";
  if (!(p.eps >= 0.0f)) return "eps=" + std::to_string(p.eps) + " must be >= 0";
  return {};
}

std::string_view query_error(const Problem& p) noexcept {
  if (p.k != p.n) return "rms_norm needs K == N (both are the row width)";
  if (p.group_size != 0) return "rms_norm has no groups; pass group_size 0";
  return {};
}

std::vector<std::byte> push_constants(const Problem& p) {
  return bytes_of(RmsNormPush{p.m, p.n, p.eps, 0});
}

BindingSizes binding_sizes(const Problem& p, Layout) {
  BindingSizes s;
  s.x = uint64_t{p.m} * p.n * dtype_bytes(p.dtype);
  s.out = s.x;
  s.bias = uint64_t{p.n} * dtype_bytes(p.dtype);  // the rms weight w
  return s;
}

uint64_t output_count(const Problem& p) { return uint64_t{p.m} * p.n; }

double flops(const Problem& p) { return 3.0 * (double(p.m) * p.n); }

ProblemData random_inputs(const Problem& p, Rng& rng) {
  ProblemData d;
  d.x.resize(uint64_t{p.m} * p.n);
  for (float& v : d.x) v = rng.signed_nonzero();
  d.norm_weight.resize(p.n);
  for (float& v : d.norm_weight) v = rng.uniform(0.5f, 1.5f);
  return d;
}

bool data_matches(const Problem& p, const ProblemData& data) {
  return data.norm_weight.size() == p.n;
}

Reference all_rows(const Problem& p, const ProblemData& d) {
  Reference r;
  r.values.assign(uint64_t{p.m} * p.n, 0.0);
  r.bounds.assign(r.values.size(), 0.0);
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

Reference reference(const Problem& p, const ProblemData& d, std::span<const uint32_t> rows) {
  return reference_of_rows(p, d, rows, p.n, all_rows);
}

double longest_sum(const Problem& p) { return p.n; }

}  // namespace
}  // namespace rms_norm_op

VKTUNE_CATALOGUE_OP(rms_norm) = {
    .name = "rms_norm",
    .k_name = "K",
    .bindings = rms_norm_op::kBindings,
    .push_constant_bytes = sizeof(RmsNormPush),
    .baseline_family = "",
    .builtins = rms_norm_op::kBuiltins,
    .shape_axis_scale = 2,
    .has_heads = false,
    .n_is_length = false,
    .speedup_by_m_class = false,
    .entry_keys = rms_norm_op::kEntryKeys,
    .with_defaults = rms_norm_op::with_defaults,
    .validate = rms_norm_op::validate,
    .query_error = rms_norm_op::query_error,
    .describe_shape = rows_text,
    .push_constants = rms_norm_op::push_constants,
    .binding_sizes = rms_norm_op::binding_sizes,
    .output_count = rms_norm_op::output_count,
    .flops = rms_norm_op::flops,
    .random_inputs = rms_norm_op::random_inputs,
    .data_matches = rms_norm_op::data_matches,
    .reference = rms_norm_op::reference,
    .longest_sum = rms_norm_op::longest_sum,
    .output_grid = m_by_n_grid,
};

}  // namespace vktune::kernels
