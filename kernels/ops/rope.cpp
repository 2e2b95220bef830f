// rope, rotary position embedding (Llama's rotate-half): for token t at position p = L - M + t,
// head h and i < D/2, with (c, s) = table[p, i]:
//   out[t, h, i] = x[t, h, i] c - x[t, h, i + D/2] s,  out[t, h, i + D/2] = x[t, h, i] s + x[t, h, i + D/2] c.
// M tokens, N = L the table's positions (the context), K = D the head dim, heads the heads rotated
// (docs/variants.md). The angles come from a host-computed table, since GLSL's sin and cos are
// only good to 2^-11.
#include <cmath>

#include "kernels/builtin_variants.h"
#include "kernels/ops/ops.h"
#include "kernels/random.h"

namespace vktune::kernels {
// Named, so its validate() and flops() hide kernels::validate() and kernels::flops().
namespace rope_op {
namespace {

// rope_*.comp's push constants: `positions` is L, pushed per dispatch so one pipeline serves every
// position of a decode loop.
struct RopePush {
  uint32_t tokens, positions, heads, head_dim;
};

// One tensor's heads (q's or k's): no KV heads. N is the context length: "context".
constexpr EntryKey kEntryKeys[] = {{"heads", EntryField::heads, true, false},
                                   {"head_dim", EntryField::k, true, false},
                                   {"context", EntryField::n, false, true}};

constexpr BindingDesc kBindings[] = {
    {BufferRole::x, "x", false}, {BufferRole::vector, "table", false}, {BufferRole::out, "out", true}};

// Vectorised rows wherever the head dim allows, one invocation per pair past that.
constexpr BuiltinVariant kBuiltins[] = {
    {"rope_rows", R"({"vec":2,"hpw":4,"wg":64})"},
    {"rope_pairs", R"({"wg":256})"},
};

// The base frequency of the random inputs' angles: Llama 2's.
constexpr double kTheta = 10000;

Problem with_defaults(Problem p) noexcept { return p; }

std::string validate(const Problem& p) {
  if (p.m == 0) return "M=0: rope needs at least one token";
  if (p.n < p.m) {
    return "L=" + std::to_string(p.n) + " < M=" + std::to_string(p.m) +
           ": the M tokens sit at positions L-M..L-1, so the table needs L >= M rows";
  }
  if (p.k == 0 || p.k % 2 != 0) {
    return "head dim D=" + std::to_string(p.k) + " is not a positive even number; rope rotates "
           "pairs of dimensions (i, i + D/2)";
  }
  if (p.heads == 0) return "heads=0: rope needs at least one head";
  if (p.kv_heads != 0) return "rope rotates one tensor's heads; set kv_heads=0";
  if (p.group_size != 0 || p.has_bias) return "rope has no group size or bias; set them to 0";
  return {};
}

std::string_view query_error(const Problem& p) noexcept {
  if (p.k % 2 != 0) return "rope needs an even head dim (K)";
  if (p.heads == 0 || p.kv_heads != 0) return "rope needs heads >= 1 and kv_heads 0";
  if (p.n < p.m) return "rope needs L (N) >= M: the tokens' positions must be in the table";
  if (p.group_size != 0) return "rope has no groups; pass group_size 0";
  return {};
}

std::string describe_shape(const Problem& p) {
  return " M=" + std::to_string(p.m) + " L=" + std::to_string(p.n) +
         " H=" + std::to_string(p.heads) + " D=" + std::to_string(p.k);
}

std::vector<std::byte> push_constants(const Problem& p) {
  return bytes_of(RopePush{p.m, p.n, p.heads, p.k});
}

// [M, heads, D]; named `outputs` since ADL would also find kernels::output_count.
uint64_t outputs(const Problem& p) { return uint64_t{p.m} * p.heads * p.k; }

BindingSizes binding_sizes(const Problem& p, Layout) {
  const uint64_t e = dtype_bytes(p.dtype);
  BindingSizes s;
  s.x = outputs(p) * e;
  s.out = s.x;
  s.bias = uint64_t{p.n} * p.k * e;  // the table: L rows of D/2 (cos, sin) pairs
  return s;
}

// Two multiplies and an add per output.
double flops(const Problem& p) { return 3.0 * double(outputs(p)); }

ProblemData random_inputs(const Problem& p, Rng& rng) {
  ProblemData d;
  d.x.resize(outputs(p));
  for (float& v : d.x) v = rng.signed_nonzero();
  d.table.reserve(uint64_t{p.n} * p.k);
  for (uint32_t pos = 0; pos < p.n; ++pos) {
    for (uint32_t i = 0; i < p.k / 2; ++i) {
      const double angle = pos * std::pow(kTheta, -2.0 * i / p.k);
      d.table.push_back(float(std::cos(angle)));
      d.table.push_back(float(std::sin(angle)));
    }
  }
  return d;
}

bool data_matches(const Problem& p, const ProblemData& data) {
  return data.table.size() == uint64_t{p.n} * p.k;
}

// Each output is a two-term sum; its bound is the sum of the terms' magnitudes.
Reference reference(const Problem& p, const ProblemData& d, std::span<const uint32_t> rows) {
  const uint32_t half = p.k / 2;
  const uint64_t width = uint64_t{p.heads} * p.k;
  const size_t count = rows.empty() ? p.m : rows.size();
  Reference r;
  r.values.assign(count * width, 0.0);
  r.bounds.assign(r.values.size(), 0.0);
  for (size_t row = 0; row < count; ++row) {
    const uint32_t t = rows.empty() ? uint32_t(row) : rows[row];
    const float* angles = d.table.data() + uint64_t{p.n - p.m + t} * p.k;
    for (uint64_t h = 0; h < p.heads; ++h) {
      const float* x = d.x.data() + t * width + h * p.k;
      const uint64_t out = row * width + h * p.k;
      for (uint32_t i = 0; i < half; ++i) {
        const double a = x[i], b = x[i + half], c = angles[2 * i], s = angles[2 * i + 1];
        r.values[out + i] = a * c - b * s;
        r.values[out + i + half] = a * s + b * c;
        r.bounds[out + i] = std::abs(a * c) + std::abs(b * s) + 1e-30;
        r.bounds[out + i + half] = std::abs(a * s) + std::abs(b * c) + 1e-30;
      }
    }
  }
  return r;
}

double longest_sum(const Problem&) { return 2; }

}  // namespace
}  // namespace rope_op

VKTUNE_CATALOGUE_OP(rope) = {
    .name = "rope",
    .k_name = "head dim D",
    .bindings = rope_op::kBindings,
    .push_constant_bytes = sizeof(rope_op::RopePush),
    .baseline_family = "rope_pairs",
    .builtins = rope_op::kBuiltins,
    // Like attention, which workgroups a variant launches follows M and the heads, not L.
    .shape_axis_scale = 0.5,
    .has_heads = true,
    .n_is_length = true,
    .speedup_by_m_class = false,
    .entry_keys = rope_op::kEntryKeys,
    .with_defaults = rope_op::with_defaults,
    .validate = rope_op::validate,
    .query_error = rope_op::query_error,
    .describe_shape = rope_op::describe_shape,
    .push_constants = rope_op::push_constants,
    .binding_sizes = rope_op::binding_sizes,
    .output_count = rope_op::outputs,
    .flops = rope_op::flops,
    .random_inputs = rope_op::random_inputs,
    .data_matches = rope_op::data_matches,
    .reference = rope_op::reference,
    .longest_sum = rope_op::longest_sum,
    .output_grid = m_by_n_grid,
};

}  // namespace vktune::kernels
