// The op registry and the per-op questions every caller asks through it.
#include "kernels/op.h"

#include "kernels/families/q4gsw_layout.h"
#include "kernels/catalogue_registry.h"

namespace vktune::kernels {

const OpDescriptor* find_op(std::string_view name) noexcept {
  for (const OpDescriptor* d : all_ops()) {
    if (d->name == name) return d;
  }
  return nullptr;
}

// The registry orders its ops by id, which is each op's name.
std::span<const OpDescriptor* const> all_ops() noexcept { return registry::ops(); }

std::string op_names_text() {
  const auto ops = all_ops();
  std::string text;
  for (size_t i = 0; i < ops.size(); ++i) {
    if (i != 0) text += i + 1 == ops.size() ? " or " : ", ";
    text += ops[i]->name;
  }
  return text;
}

bool streams_weights(const OpDescriptor& op) noexcept {
  for (const BindingDesc& b : op.bindings) {
    if (b.role == BufferRole::weight || b.role == BufferRole::keys) return true;
  }
  return false;
}

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

std::vector<std::byte> push_constants(const Problem& p) {
  return p.op->push_constants(p);
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
  return p.op->binding_sizes(p, layout);
}

uint64_t output_count(const Problem& p) { return p.op->output_count(p); }

double flops(const Problem& p) { return p.op->flops(p); }

}  // namespace vktune::kernels
