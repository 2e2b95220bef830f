// An op as data: its bindings in shader order and the buffer each holds, its push constants,
// the work it does and the family every speedup is quoted against. The instance that binds
// buffers, the runtime's dispatch contract, the tuner and the report all read this, so adding
// an op means an OpDesc here, its families and its shaders.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "kernels/problem.h"

namespace vktune::kernels {

// Weight layout a variant reads: raw [N, K/2] bytes, packed or packed_s16 (the packed blocks
// with fp16 scales interleaved: kernels/families/q4gsw_layout.h), or none (rms_norm and sdpa
// have no quantized weight).
enum class Layout { raw, packed, packed_s16, none };
const char* layout_name(Layout layout) noexcept;
// The layout named `name` ("raw", "packed", "packed_s16", "none"), or nullopt.
std::optional<Layout> layout_from_name(std::string_view name) noexcept;
// Whether the weight buffer carries the scales (the scales binding is then unused, 0 bytes).
constexpr bool layout_holds_scales(Layout layout) { return layout == Layout::packed_s16; }
// Bytes of the q4gsw weight buffer of an N x K problem with `group_size` in `layout` (0 for
// none, or for packed_s16 with a group size it cannot hold).
uint64_t weight_bytes(Layout layout, uint32_t n, uint32_t k, uint32_t group_size) noexcept;

// What a storage-buffer binding holds. `vector` is q4gsw's bias and rms_norm's weight w; `x`
// is sdpa's queries, `keys` and `values` its KV cache.
enum class BufferRole { x, weight, scales, vector, out, workspace, keys, values };

struct BindingDesc {
  BufferRole role;
  std::string_view name;  // as the shaders and docs/variants.md name it
  bool written;           // the dispatch writes it (out, and the split-K workspace)
};

struct OpDesc {
  Op op;
  std::span<const BindingDesc> bindings;  // binding i of every shader of the op
  uint32_t push_constant_bytes;
  std::string_view baseline_family;  // empty: none (speedups then quote fixed routing only)
};

const OpDesc& op_desc(Op op);

// Push constants of the q4gsw shaders (q4gsw_common.glsl) and of rms_norm.comp.
struct Q4gswPush {
  uint32_t m, n, k, group_size, has_bias, n_pad, pad0, pad1;
};
struct RmsNormPush {
  uint32_t rows, width;
  float eps;
  uint32_t pad0;
};
// sdpa_common.glsl: `length` is L, pushed per dispatch so one pipeline serves a growing cache.
struct SdpaPush {
  uint32_t tokens, length, heads, kv_heads, head_dim;
  float scale;  // 1 / sqrt(head_dim)
  uint32_t pad0, pad1;
};

// The push-constant bytes of `problem`, op_desc(problem.op).push_constant_bytes long.
std::vector<std::byte> push_constants(const Problem& problem);

// Bytes of each binding's buffer for `problem` in `layout` (the workspace is the family's:
// Family::workspace_bytes).
struct BindingSizes {
  uint64_t x = 0, weight = 0, scales = 0, bias = 0, out = 0;
  uint64_t keys = 0, values = 0;  // sdpa's K and V cache, the first L positions
  // The size of the buffer in `role` (0 for the workspace).
  uint64_t of(BufferRole role) const noexcept;
  // What one dispatch reads and writes at least once: every buffer above.
  uint64_t total() const noexcept { return x + weight + scales + bias + out + keys + values; }
};
BindingSizes binding_sizes(const Problem& problem, Layout layout);

// Bytes to allocate and bind for a buffer of `bytes`: rounded up to 16 and at least 16, since
// the shaders load whole 16-byte words at a tensor's end (and Vulkan binds no empty buffer).
constexpr uint64_t binding_alloc_bytes(uint64_t bytes) {
  return bytes < 16 ? 16 : (bytes + 15) / 16 * 16;
}

// Floats in the output: [M, N] (sdpa: [M, heads, head dim]).
uint64_t output_count(const Problem& problem);

// Floating-point operations of one dispatch (q4gsw: 2 M N K; rms_norm: 3 M N; sdpa: 4 heads D
// per (token, attended position) pair).
double flops(const Problem& problem);

}  // namespace vktune::kernels
