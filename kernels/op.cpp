// The op table and the per-op sizes, push constants and work.
#include "kernels/op.h"

#include <bit>
#include <cmath>
#include <stdexcept>

#include "kernels/families/q4gsw_layout.h"

namespace vktune::kernels {
namespace {

constexpr BindingDesc kQ4gswBindings[] = {
    {BufferRole::x, "x", false},         {BufferRole::weight, "weight", false},
    {BufferRole::scales, "scales", false}, {BufferRole::vector, "bias", false},
    {BufferRole::out, "out", true},      {BufferRole::workspace, "workspace", true}};
constexpr BindingDesc kRmsNormBindings[] = {
    {BufferRole::x, "x", false}, {BufferRole::vector, "w", false}, {BufferRole::out, "out", true}};

constexpr BindingDesc kSdpaBindings[] = {
    {BufferRole::x, "q", false},          {BufferRole::keys, "k_cache", false},
    {BufferRole::values, "v_cache", false}, {BufferRole::out, "out", true},
    {BufferRole::workspace, "workspace", true}};

const OpDesc kOps[] = {
    {Op::q4gsw, kQ4gswBindings, sizeof(Q4gswPush), "q4gsw_naive"},
    {Op::rms_norm, kRmsNormBindings, sizeof(RmsNormPush), ""},
    {Op::sdpa, kSdpaBindings, sizeof(SdpaPush), "sdpa_naive"},
};

// (token, cache position) pairs sdpa scores: token t attends L - M + t + 1 positions.
double attended_pairs(const Problem& p) {
  return double(p.m) * (p.n - p.m) + double(p.m) * (p.m + 1) / 2;
}

template <typename T>
std::vector<std::byte> bytes_of(const T& value) {
  const auto raw = std::bit_cast<std::array<std::byte, sizeof(T)>>(value);
  return {raw.begin(), raw.end()};
}

}  // namespace

const char* layout_name(Layout layout) noexcept {
  switch (layout) {
    case Layout::raw: return "raw";
    case Layout::packed: return "packed";
    case Layout::packed_s16: return "packed_s16";
    case Layout::none: return "none";
  }
  return "?";
}

std::optional<Layout> layout_from_name(std::string_view name) noexcept {
  for (Layout l : {Layout::raw, Layout::packed, Layout::packed_s16, Layout::none}) {
    if (name == layout_name(l)) return l;
  }
  return std::nullopt;
}

uint64_t weight_bytes(Layout layout, uint32_t n, uint32_t k, uint32_t group_size) noexcept {
  switch (layout) {
    case Layout::raw: return uint64_t{n} * (k / 2);
    case Layout::packed: return packed_weight_bytes(n, k);
    case Layout::packed_s16:
      return group_size % kPackedKBlock == 0 ? packed_s16_weight_bytes(n, k, group_size) : 0;
    case Layout::none: return 0;
  }
  return 0;
}

const OpDesc& op_desc(Op op) {
  for (const OpDesc& d : kOps) {
    if (d.op == op) return d;
  }
  throw std::logic_error("op_desc: an Op without a description");
}

std::vector<std::byte> push_constants(const Problem& p) {
  if (p.op == Op::sdpa) {
    return bytes_of(SdpaPush{p.m, p.n, p.heads, p.kv_heads, p.k,
                             static_cast<float>(1.0 / std::sqrt(double(p.k))), 0, 0});
  }
  if (p.op == Op::q4gsw) {
    return bytes_of(Q4gswPush{p.m, p.n, p.k, p.group_size, p.has_bias ? 1u : 0u, packed_n(p.n),
                              0, 0});
  }
  return bytes_of(RmsNormPush{p.m, p.n, p.eps, 0});
}

uint64_t BindingSizes::of(BufferRole role) const noexcept {
  switch (role) {
    case BufferRole::x: return x;
    case BufferRole::weight: return weight;
    case BufferRole::scales: return scales;
    case BufferRole::vector: return bias;
    case BufferRole::out: return out;
    case BufferRole::workspace: return 0;
    case BufferRole::keys: return keys;
    case BufferRole::values: return values;
  }
  return 0;
}

BindingSizes binding_sizes(const Problem& p, Layout layout) {
  BindingSizes s;
  const uint64_t e = dtype_bytes(p.dtype);  // every float tensor has the problem's dtype
  if (p.op == Op::sdpa) {
    s.x = uint64_t{p.m} * p.heads * p.k * e;
    s.out = s.x;
    s.keys = uint64_t{p.n} * p.kv_heads * p.k * e;
    s.values = s.keys;
    return s;
  }
  if (p.op == Op::rms_norm) {
    s.x = uint64_t{p.m} * p.n * e;
    s.out = s.x;
    s.bias = uint64_t{p.n} * e;  // the rms weight w
    return s;
  }
  s.x = uint64_t{p.m} * p.k * e;
  s.out = uint64_t{p.m} * p.n * e;
  s.scales = p.group_size && !layout_holds_scales(layout) ? uint64_t{p.k / p.group_size} * p.n * e
                                                          : 0;
  s.bias = p.has_bias ? uint64_t{p.n} * e : 0;
  // none: the q4gsw callers that name no layout (limits, output sizes) mean the raw one.
  s.weight = weight_bytes(layout == Layout::none ? Layout::raw : layout, p.n, p.k, p.group_size);
  return s;
}

uint64_t output_count(const Problem& p) {
  return p.op == Op::sdpa ? uint64_t{p.m} * p.heads * p.k : uint64_t{p.m} * p.n;
}

double flops(const Problem& p) {
  // QK^T and PV: 2 D flops each per head and pair (the softmax's exps are not counted).
  if (p.op == Op::sdpa) return 4.0 * p.heads * p.k * attended_pairs(p);
  const double mn = double(p.m) * p.n;
  return p.op == Op::q4gsw ? 2.0 * mn * p.k : 3.0 * mn;
}

}  // namespace vktune::kernels
