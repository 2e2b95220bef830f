// An op as data: its bindings in shader order and the buffer each holds, its push constants,
// the work it does and the family every speedup is quoted against. The instance that binds
// buffers, the runtime's dispatch contract, the tuner and the report all read this, so adding
// an op means its OpDescriptor (kernels/ops/, registered as kernels/catalogue_registry.h says),
// its families and its shaders.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "kernels/output_tile.h"
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

// The problem field a key of a shapes-file entry sets (tuner/shape_sets.cpp reads an entry
// through its op's EntryKeys, so an op's file format is its descriptor's).
enum class EntryField : uint8_t { n, k, group_size, bias, heads, kv_heads };

// One key of a shapes-file entry, besides "op" and "m", which every entry takes.
struct EntryKey {
  std::string_view name;  // "n", "head_dim", "context"
  EntryField field;
  bool required;
  // A number or a list, each value its own problem; left out, the run's default list (group
  // sizes, or context lengths for a field N that is a length).
  bool list;
};

struct ProblemData;  // kernels/families/reference.h
struct Reference;
struct BuiltinVariant;  // kernels/builtin_variants.h
struct Rng;             // kernels/random.h
struct BindingSizes;

// Everything vktune knows about one op, asked by the tuner, the runtime, the report, the engine
// and the CLI: no code outside kernels/ops/ branches on which op a problem is. Plain data and
// functions, constant-initialised, so the runtime reads it on its allocation-free select path.
// One per op (kernels/ops/<op>.cpp), found by op_descriptor() or find_op(); an Op is its address.
struct OpDescriptor {
  std::string_view name;                  // "q4gsw": the DB's problems.op and the CLI's --op
  std::string_view k_name;                // what K is called in messages ("K", "head dim D")
  std::span<const BindingDesc> bindings;  // binding i of every shader of the op
  uint32_t push_constant_bytes;
  std::string_view baseline_family;  // empty: none (speedups then quote fixed routing only)
  std::span<const BuiltinVariant> builtins;  // the fixed routing, in order of preference
  // How far apart two shapes' N and K are against their M for the nearest-shape lookup
  // (runtime/shape_index.h says why attention weighs them less).
  double shape_axis_scale;
  bool has_heads;  // takes query and KV head counts (Problem::heads, kv_heads)
  // N is a length pushed per dispatch (sdpa's attended cache positions): an instance made for N
  // serves every length from M up to N (KernelInstance::set_length).
  bool n_is_length;
  // The report groups its speedups and picks its heat map by M class (decode, prefill).
  bool speedup_by_m_class;
  std::span<const EntryKey> entry_keys;  // a shapes-file entry's keys, in the order messages list them

  // `p` with its derived dimensions filled in (rms_norm: K = N when 0, group size 0).
  Problem (*with_defaults)(Problem p) noexcept;
  // Empty when `p` is well formed, else the reason with the values named.
  std::string (*validate)(const Problem& p);
  // validate() for the runtime: fixed text, no allocation; `p` has its defaults.
  std::string_view (*query_error)(const Problem& p) noexcept;
  // The shape in describe()'s words, after the op's name: " M=1 N=4096 K=4096 gs=32".
  std::string (*describe_shape)(const Problem& p);
  std::vector<std::byte> (*push_constants)(const Problem& p);
  BindingSizes (*binding_sizes)(const Problem& p, Layout layout);
  uint64_t (*output_count)(const Problem& p);
  double (*flops)(const Problem& p);
  // make_random's inputs of a valid `p` in fp32, drawn from `rng` (reference.h's distributions).
  ProblemData (*random_inputs)(const Problem& p, Rng& rng);
  // Whether `data`'s op-specific tensors have `p`'s sizes (x is checked by the caller).
  bool (*data_matches)(const Problem& p, const ProblemData& data);
  // The fp64 reference of the output rows `rows` (all when empty) in that order.
  Reference (*reference)(const Problem& p, const ProblemData& data, std::span<const uint32_t> rows);
  // The longest float sum one output accumulates: fp32_tolerance grows with its square root.
  double (*longest_sum)(const Problem& p);
  // The output of a problem of these sizes (heads 0 for an op without them) as the rows and
  // columns a variant's OutputTile covers: the runtime's ranking carries a tiled variant's
  // padding and grid from one shape to another through it. M x N but for sdpa.
  OutputGrid (*output_grid)(uint32_t m, uint32_t n, uint32_t heads, uint32_t kv_heads) noexcept;
};

// The descriptor of `op` (op.descriptor()).
inline const OpDescriptor& op_descriptor(Op op) noexcept { return op.descriptor(); }
// The descriptor named `name`, or nullptr.
const OpDescriptor* find_op(std::string_view name) noexcept;
// Every op, ordered by name (the catalogue's registry: kernels/catalogue_registry.h).
std::span<const OpDescriptor* const> all_ops() noexcept;
// "q4gsw, rms_norm, rope or sdpa": every op's name, for messages and help.
std::string op_names_text();
// Whether a dispatch of `op` streams a weight or a KV cache (the tuner's cold copies rotate it).
bool streams_weights(const OpDescriptor& op) noexcept;

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

// The push-constant bytes of `problem`, op_descriptor(problem.op).push_constant_bytes long.
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
