// sdpa, attention over a KV cache: out[t, h, :] = softmax_j(q[t, h, :] . K[j, h / group, :] /
// sqrt(D)) V[j, h / group, :], M tokens at cache positions L-M..L-1 (docs/attention.md).
#include <algorithm>
#include <cmath>

#include "kernels/builtin_variants.h"
#include "kernels/ops/ops.h"
#include "kernels/random.h"

namespace vktune::kernels {
// Named, so its validate() and flops() hide kernels::validate() and kernels::flops().
namespace sdpa_op {
namespace {

// N is the context length: "context".
constexpr EntryKey kEntryKeys[] = {{"heads", EntryField::heads, true, false},
                                   {"kv_heads", EntryField::kv_heads, true, false},
                                   {"head_dim", EntryField::k, true, false},
                                   {"context", EntryField::n, false, true}};

constexpr BindingDesc kBindings[] = {
    {BufferRole::x, "q", false},            {BufferRole::keys, "k_cache", false},
    {BufferRole::values, "v_cache", false}, {BufferRole::out, "out", true},
    {BufferRole::workspace, "workspace", true}};

// The fused online-softmax kernel wherever it fits (head dim up to 256), the three-pass
// baseline past that.
constexpr BuiltinVariant kBuiltins[] = {
    {"sdpa_fused", R"({"vec":4,"keys":1,"wg":64,"qpg":1})"},
    {"sdpa_fused", R"({"vec":1,"keys":1,"wg":64,"qpg":1})"},
    {"sdpa_naive", R"({"wg":64})"},
};

Problem with_defaults(Problem p) noexcept { return p; }

std::string validate(const Problem& p) {
  const std::string m = "M=" + std::to_string(p.m), l = "L=" + std::to_string(p.n);
  if (p.m == 0) return "M=0: sdpa needs at least one query token";
  if (p.n == 0) return "L=0: sdpa needs at least one cache position to attend";
  if (p.n < p.m) {
    return l + " < " + m + ": the M query tokens sit at cache positions L-M..L-1, so the cache "
           "must hold them; append the tokens' keys and values before attending";
  }
  if (p.k == 0) return "head dim D=0: sdpa needs a positive head dim (K)";
  if (p.heads == 0 || p.kv_heads == 0) return "sdpa needs heads >= 1 and kv_heads >= 1";
  if (p.heads % p.kv_heads != 0) {
    return "heads=" + std::to_string(p.heads) + " is not a multiple of kv_heads=" +
           std::to_string(p.kv_heads) + "; grouped-query attention shares each KV head among "
           "heads / kv_heads query heads";
  }
  if (p.group_size != 0 || p.has_bias) return "sdpa has no group size or bias; set them to 0";
  return {};
}

std::string_view query_error(const Problem& p) noexcept {
  if (p.heads == 0 || p.kv_heads == 0) return "sdpa needs heads >= 1 and kv_heads >= 1";
  if (p.heads % p.kv_heads != 0) return "sdpa needs heads to be a multiple of kv_heads (GQA)";
  if (p.n < p.m) return "sdpa needs L (N) >= M: the queried tokens must be in the cache";
  if (p.group_size != 0) return "sdpa has no groups; pass group_size 0";
  return {};
}

std::string describe_shape(const Problem& p) {
  return " M=" + std::to_string(p.m) + " L=" + std::to_string(p.n) +
         " Hq=" + std::to_string(p.heads) + " Hkv=" + std::to_string(p.kv_heads) +
         " D=" + std::to_string(p.k);
}

// `length` is L, pushed per dispatch so one pipeline serves a growing cache.
std::vector<std::byte> push_constants(const Problem& p) {
  return bytes_of(SdpaPush{p.m, p.n, p.heads, p.kv_heads, p.k,
                           static_cast<float>(1.0 / std::sqrt(double(p.k))), 0, 0});
}

BindingSizes binding_sizes(const Problem& p, Layout) {
  const uint64_t e = dtype_bytes(p.dtype);
  BindingSizes s;
  s.x = uint64_t{p.m} * p.heads * p.k * e;
  s.out = s.x;
  s.keys = uint64_t{p.n} * p.kv_heads * p.k * e;
  s.values = s.keys;
  return s;
}

uint64_t output_count(const Problem& p) { return uint64_t{p.m} * p.heads * p.k; }

// QK^T and PV: 2 D flops each per head and (token, attended position) pair; token t attends
// L - M + t + 1 positions. The softmax's exps are not counted.
double flops(const Problem& p) {
  const double pairs = double(p.m) * (p.n - p.m) + double(p.m) * (p.m + 1) / 2;
  return 4.0 * p.heads * p.k * pairs;
}

ProblemData random_inputs(const Problem& p, Rng& rng) {
  ProblemData d;
  d.x.resize(uint64_t{p.m} * p.heads * p.k);
  d.keys.resize(uint64_t{p.n} * p.kv_heads * p.k);
  d.values.resize(d.keys.size());
  for (auto* tensor : {&d.x, &d.keys, &d.values}) {
    for (float& v : *tensor) v = rng.signed_nonzero();
  }
  return d;
}

bool data_matches(const Problem& p, const ProblemData& data) {
  const uint64_t cache = uint64_t{p.n} * p.kv_heads * p.k;
  return data.keys.size() == cache && data.values.size() == cache;
}

// A token's output depends on its cache position, which a sub-problem of fewer tokens would
// move: the reference takes the sampled tokens where they are.
Reference reference(const Problem& p, const ProblemData& d, std::span<const uint32_t> rows) {
  return sdpa_reference(p, d, rows);
}

// A score sums D products, a softmax-weighted output L terms.
double longest_sum(const Problem& p) { return std::max(p.n, p.k); }

// A tiled kernel's workgroup computes a block of one KV head's query rows (M x heads / kv_heads:
// every token of the head group), so its tiles pad those rows and each KV head is a column.
// (Tiles of whole head groups hold exactly these rows where the group divides the tile's rows,
// as every power-of-two group does; otherwise a few more tiles than the grid counts.)
OutputGrid output_grid(uint32_t m, uint32_t, uint32_t heads, uint32_t kv_heads) noexcept {
  if (kv_heads == 0) return {m, 1};
  return {m * (heads / kv_heads), kv_heads};
}

}  // namespace
}  // namespace sdpa_op

VKTUNE_CATALOGUE_OP(sdpa) = {
    .name = "sdpa",
    .k_name = "head dim D",
    .bindings = sdpa_op::kBindings,
    .push_constant_bytes = sizeof(SdpaPush),
    .baseline_family = "sdpa_naive",
    .builtins = sdpa_op::kBuiltins,
    // Which workgroups an attention variant launches follows M, not L or D
    // (runtime/shape_index.h).
    .shape_axis_scale = 0.5,
    .has_heads = true,
    .n_is_length = true,
    .speedup_by_m_class = false,
    .entry_keys = sdpa_op::kEntryKeys,
    .with_defaults = sdpa_op::with_defaults,
    .validate = sdpa_op::validate,
    .query_error = sdpa_op::query_error,
    .describe_shape = sdpa_op::describe_shape,
    .push_constants = sdpa_op::push_constants,
    .binding_sizes = sdpa_op::binding_sizes,
    .output_count = sdpa_op::output_count,
    .flops = sdpa_op::flops,
    .random_inputs = sdpa_op::random_inputs,
    .data_matches = sdpa_op::data_matches,
    .reference = sdpa_op::reference,
    .longest_sum = sdpa_op::longest_sum,
    .output_grid = sdpa_op::output_grid,
};

}  // namespace vktune::kernels
