// q4gsw, 4-bit groupwise-symmetric weight-only linear:
// out[m, n] = bias[n] + sum_k x[m, k] * (q(n, k) - 8) * scale[k / group_size, n].
#include <algorithm>
#include <array>
#include <cmath>
#include <thread>

#include "kernels/builtin_variants.h"
#include "kernels/families/q4gsw_layout.h"
#include "kernels/float16.h"
#include "kernels/ops/ops.h"
#include "kernels/parallel.h"
#include "kernels/random.h"

namespace vktune::kernels {
// Named, so its validate() and flops() hide kernels::validate() and kernels::flops().
namespace q4gsw_op {
namespace {

constexpr EntryKey kEntryKeys[] = {{"n", EntryField::n, true, false},
                                   {"k", EntryField::k, true, false},
                                   {"gs", EntryField::group_size, false, true},
                                   {"bias", EntryField::bias, false, false}};

constexpr BindingDesc kBindings[] = {
    {BufferRole::x, "x", false},           {BufferRole::weight, "weight", false},
    {BufferRole::scales, "scales", false}, {BufferRole::vector, "bias", false},
    {BufferRole::out, "out", true},        {BufferRole::workspace, "workspace", true}};

// A 64-lane GEMV for decode, a 4x4 register tile otherwise.
constexpr BuiltinVariant kBuiltins[] = {
    {"q4gsw_gemv", R"({"layout":"raw","wg":64,"rows":1,"load":"u32","reduce":"shared"})", 1},
    {"q4gsw_tiled", R"({"layout":"raw","tm":4,"tn":4,"wg":64,"bk":0})"},
};

Problem with_defaults(Problem p) noexcept { return p; }

std::string validate(const Problem& p) {
  if (std::string e = rows_shape_error(p); !e.empty()) return e;
  const std::string k = "K=" + std::to_string(p.k);
  const std::string gs = "group_size=" + std::to_string(p.group_size);
  if (p.k == 0) return "K=0: q4gsw needs at least one input feature";
  if (p.group_size == 0) return "group_size=0: q4gsw needs a positive, even group size";
  if (p.k % 2 != 0) return k + " is odd; q4gsw needs an even K";
  if (p.group_size % 2 != 0) {
    return gs + " is odd; q4gsw needs an even group size (two nibbles per byte share a scale)";
  }
  if (p.k % p.group_size != 0) return k + " is not a multiple of " + gs;
  return {};
}

std::string_view query_error(const Problem& p) noexcept {
  if (p.k % 2 != 0) return "K is odd; q4gsw needs an even K (two nibbles per byte)";
  if (p.group_size == 0 || p.group_size % 2 != 0) {
    return "group_size must be a non-zero multiple of 2 for q4gsw";
  }
  if (p.k % p.group_size != 0) {
    return "K is not a multiple of group_size; q4gsw needs K % group_size == 0";
  }
  return {};
}

std::string describe_shape(const Problem& p) {
  std::string s = rows_text(p) + " K=" + std::to_string(p.k);
  s += " gs=" + std::to_string(p.group_size);
  if (p.has_bias) s += " bias";
  return s;
}

std::vector<std::byte> push_constants(const Problem& p) {
  return bytes_of(
      Q4gswPush{p.m, p.n, p.k, p.group_size, p.has_bias ? 1u : 0u, packed_n(p.n), 0, 0});
}

BindingSizes binding_sizes(const Problem& p, Layout layout) {
  const uint64_t e = dtype_bytes(p.dtype);
  BindingSizes s;
  s.x = uint64_t{p.m} * p.k * e;
  s.out = uint64_t{p.m} * p.n * e;
  s.scales = p.group_size && !layout_holds_scales(layout) ? uint64_t{p.k / p.group_size} * p.n * e
                                                          : 0;
  s.bias = p.has_bias ? uint64_t{p.n} * e : 0;
  // none: the callers that name no layout (limits, output sizes) mean the raw one.
  s.weight = weight_bytes(layout == Layout::none ? Layout::raw : layout, p.n, p.k, p.group_size);
  return s;
}

uint64_t output_count(const Problem& p) { return uint64_t{p.m} * p.n; }

double flops(const Problem& p) { return 2.0 * p.m * p.n * p.k; }

ProblemData random_inputs(const Problem& p, Rng& rng) {
  ProblemData d;
  d.x.resize(uint64_t{p.m} * p.k);
  fill(rng, std::span(d.x), 2, [](Rng& r) { return r.signed_nonzero(); });
  d.weight.resize(uint64_t{p.n} * (p.k / 2));
  fill(rng, std::span(d.weight), 1, [](Rng& r) { return static_cast<uint8_t>(r.next() & 0xFF); });
  d.scales.resize(uint64_t{p.k / p.group_size} * p.n);
  // fp16 values for every dtype: the packed_s16 layout stores scales as fp16 (what engines
  // ship for symmetric int4), so the reference reads exactly the scale every layout holds.
  fill(rng, std::span(d.scales), 1, [](Rng& r) { return round_to_half(r.uniform(0.5f, 1.5f)); });
  if (p.has_bias) {
    d.bias.resize(p.n);
    for (float& v : d.bias) v = rng.signed_nonzero();
  }
  return d;
}

bool data_matches(const Problem& p, const ProblemData& data) {
  return data.weight.size() == uint64_t{p.n} * (p.k / 2) &&
         data.scales.size() == uint64_t{p.k / p.group_size} * p.n &&
         data.bias.size() == (p.has_bias ? p.n : 0u);
}

constexpr uint32_t kRows = 4;

// The sums of `R` consecutive rows of x (K floats each, from `x`) against one dequantized weight
// row `w` (|w| in `aw`) and bias `b`, with their error bounds. The rows' sums are independent
// chains the core overlaps (a lone row waits on each add), each summed in k order as alone, so
// every value is what one row at a time gives.
template <uint32_t R>
void dot_rows(const float* x, std::span<const double> w, std::span<const double> aw, double b,
              std::array<double, kRows>& sum, std::array<double, kRows>& bound) {
  const size_t k_count = w.size();
  for (uint32_t i = 0; i < R; ++i) {
    sum[i] = b;
    bound[i] = std::abs(b);
  }
  for (size_t k = 0; k < k_count; ++k) {
    for (uint32_t i = 0; i < R; ++i) {
      const float xi = x[i * k_count + k];
      sum[i] += xi * w[k];
      bound[i] += std::abs(xi) * aw[k];
    }
  }
}

Reference all_rows(const Problem& p, const ProblemData& d) {
  Reference r;
  r.values.assign(uint64_t{p.m} * p.n, 0.0);
  r.bounds.assign(r.values.size(), 0.0);
  // Output features are independent: split them over the cores (the H100 host's 16 make a
  // 128 x 128256 x 4096 reference take seconds, not a minute).
  auto features = [&](uint32_t begin, uint32_t end) {
    std::vector<double> w(p.k), aw(p.k);
    for (uint32_t n = begin; n < end; ++n) {
      dequantize_row(p, d, n, w);
      for (uint32_t k = 0; k < p.k; ++k) aw[k] = std::abs(w[k]);
      const double b = p.has_bias ? d.bias[n] : 0.0;
      for (uint32_t m = 0; m < p.m; m += kRows) {
        const uint32_t rows = std::min(kRows, p.m - m);
        const float* x = d.x.data() + uint64_t{m} * p.k;
        std::array<double, kRows> sum{}, bound{};
        switch (rows) {
          case 1: dot_rows<1>(x, w, aw, b, sum, bound); break;
          case 2: dot_rows<2>(x, w, aw, b, sum, bound); break;
          case 3: dot_rows<3>(x, w, aw, b, sum, bound); break;
          default: dot_rows<kRows>(x, w, aw, b, sum, bound);
        }
        for (uint32_t i = 0; i < rows; ++i) {
          r.values[uint64_t{m + i} * p.n + n] = sum[i];
          r.bounds[uint64_t{m + i} * p.n + n] = bound[i] + 1e-30;
        }
      }
    }
  };
  const uint64_t work = uint64_t{p.m} * p.n * p.k;
  const uint32_t threads =
      work < (1u << 22) ? 1u : std::min(std::max(1u, std::thread::hardware_concurrency()), p.n);
  parallel_for(threads, [&](size_t t) {
    features(uint64_t{p.n} * t / threads, uint64_t{p.n} * (t + 1) / threads);
  });
  return r;
}

Reference reference(const Problem& p, const ProblemData& d, std::span<const uint32_t> rows) {
  return reference_of_rows(p, d, rows, p.k, all_rows);
}

double longest_sum(const Problem& p) { return p.k; }

}  // namespace
}  // namespace q4gsw_op

VKTUNE_CATALOGUE_OP(q4gsw) = {
    .name = "q4gsw",
    .k_name = "K",
    .bindings = q4gsw_op::kBindings,
    .push_constant_bytes = sizeof(Q4gswPush),
    .baseline_family = "q4gsw_naive",
    .builtins = q4gsw_op::kBuiltins,
    .shape_axis_scale = 2,
    .has_heads = false,
    .n_is_length = false,
    .speedup_by_m_class = true,
    .entry_keys = q4gsw_op::kEntryKeys,
    .with_defaults = q4gsw_op::with_defaults,
    .validate = q4gsw_op::validate,
    .query_error = q4gsw_op::query_error,
    .describe_shape = q4gsw_op::describe_shape,
    .push_constants = q4gsw_op::push_constants,
    .binding_sizes = q4gsw_op::binding_sizes,
    .output_count = q4gsw_op::output_count,
    .flops = q4gsw_op::flops,
    .random_inputs = q4gsw_op::random_inputs,
    .data_matches = q4gsw_op::data_matches,
    .reference = q4gsw_op::reference,
    .longest_sum = q4gsw_op::longest_sum,
    .output_grid = m_by_n_grid,
};

}  // namespace vktune::kernels
