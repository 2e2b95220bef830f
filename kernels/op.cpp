// The op table and the per-op sizes, push constants and work.
#include "kernels/op.h"

#include <bit>
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

const OpDesc kOps[] = {
    {Op::q4gsw, kQ4gswBindings, sizeof(Q4gswPush), "q4gsw_naive"},
    {Op::rms_norm, kRmsNormBindings, sizeof(RmsNormPush), ""},
};

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
    case Layout::none: return "none";
  }
  return "?";
}

const OpDesc& op_desc(Op op) {
  for (const OpDesc& d : kOps) {
    if (d.op == op) return d;
  }
  throw std::logic_error("op_desc: an Op without a description");
}

std::vector<std::byte> push_constants(const Problem& p) {
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
  }
  return 0;
}

BindingSizes binding_sizes(const Problem& p, Layout layout) {
  BindingSizes s;
  const uint64_t e = dtype_bytes(p.dtype);  // every float tensor has the problem's dtype
  if (p.op == Op::rms_norm) {
    s.x = uint64_t{p.m} * p.n * e;
    s.out = s.x;
    s.bias = uint64_t{p.n} * e;  // the rms weight w
    return s;
  }
  s.x = uint64_t{p.m} * p.k * e;
  s.out = uint64_t{p.m} * p.n * e;
  s.scales = p.group_size ? uint64_t{p.k / p.group_size} * p.n * e : 0;
  s.bias = p.has_bias ? uint64_t{p.n} * e : 0;
  s.weight = layout == Layout::packed ? packed_weight_bytes(p.n, p.k) : uint64_t{p.n} * (p.k / 2);
  return s;
}

double flops(const Problem& p) {
  const double mn = double(p.m) * p.n;
  return p.op == Op::q4gsw ? 2.0 * mn * p.k : 3.0 * mn;
}

}  // namespace vktune::kernels
