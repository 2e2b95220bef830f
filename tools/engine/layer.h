// A Llama decoder layer as a graph of nodes over tensors, and its random weights and KV cache:
//   x -> attn_norm -> q, k, v -> rope(q), rope(k) and v appended to the K and V caches
//     -> sdpa over the cache -> o -> + x -> ffn_norm -> gate, up -> silu(gate) * up
//     -> down -> + residual -> out
// for M new tokens at cache positions L - M .. L - 1 (L: the context).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "kernels/families/reference.h"
#include "kernels/problem.h"
#include "kernels/models/presets.h"

namespace vktune::engine {

enum class NodeKind {
  rms_norm,   // y = rms_norm(x) * w                       (routed: a kernel family)
  linear,     // y = q4gsw(x, W)                           (routed: a kernel family)
  attention,  // y = sdpa(q, K cache, V cache), causal      (routed: a kernel family)
  add,        // y = a + b                                 (engine_add.comp)
  silu_mul,   // y = silu(a) * b, silu(a) = a / (1 + e^-a)  (engine_silu_mul.comp)
  rope,       // y = rope(x, table) at the tokens' positions (routed: a kernel family)
  copy,       // y = x converted to y's dtype, from row `row` on (engine_copy.comp)
};

// How many rows a tensor has.
enum class Rows {
  tokens,   // M: one per new token
  context,  // L: the KV cache, one per position (the layer writes rows L - M .. L - 1)
};

struct TensorSpec {
  std::string name;
  uint32_t width = 0;
  Rows rows = Rows::tokens;
  kernels::DType dtype = kernels::DType::f32;
};

struct Node {
  std::string name;  // "attn_norm", "q_proj", ...
  NodeKind kind = NodeKind::linear;
  // Tensor indices: x first (add: a, b; silu_mul: gate, up). A routed node's are its op's
  // first read bindings in their order (rope: x, table; attention: q, K cache, V cache); the
  // op's other read bindings are the node's own data (LayerData::params).
  std::vector<size_t> inputs;
  size_t output = 0;  // tensor index; each tensor is written by one node (the caches in place)
  // What the runtime is asked for routed nodes (op, M, N, K, group size; attention: N = L, K =
  // head dim, heads); for the others only m and n (the width) are meaningful.
  kernels::Problem problem;

  bool routed() const noexcept {
    return kind == NodeKind::rms_norm || kind == NodeKind::linear || kind == NodeKind::attention ||
           kind == NodeKind::rope;
  }
};

struct Layer {
  models::LayerShape shape;
  uint32_t m = 0;        // tokens: rows of every Rows::tokens tensor
  uint32_t context = 0;  // L: rows of the caches; the tokens sit at positions L - M .. L - 1
  // Of the activations, the projections, attention and the KV cache (sdpa's q, caches and out
  // are stored in it; its softmax and sums are fp32 either way).
  kernels::DType dtype = kernels::DType::f32;
  // tensors[0] is the input x [M, hidden]; the caches are [L, kv_heads x head_dim] in `dtype`
  // (the layout sdpa reads) and the RoPE table [L, head_dim / 2] (cos, sin) pairs in `dtype`
  // (the layout rope reads), all
  // three uploaded from LayerData.
  std::vector<TensorSpec> tensors;
  std::vector<Node> nodes;      // in execution order; inputs are produced earlier
  std::vector<size_t> outputs;  // what the check compares: out, k_cache, v_cache

  // The index of the tensor named `name`; throws std::out_of_range.
  size_t tensor(std::string_view name) const;
  // Rows of tensor `index`: M or L.
  uint32_t rows(size_t index) const;
  // Position of the first new token: L - M.
  uint32_t first_position() const noexcept { return context - m; }
};

// The layer of `shape` for `m` tokens at context `context` (the cache holds context - m earlier
// positions) in `dtype`. Throws std::invalid_argument naming the bad value and the fix: m or
// context 0, context < m, heads not a multiple of kv_heads, an odd head dim (RoPE rotates
// pairs), or a node whose problem is invalid (e.g. hidden % group_size != 0).
Layer make_layer(const models::LayerShape& shape, uint32_t m, uint32_t context,
                 kernels::DType dtype = kernels::DType::f32);

// Host data of a layer, in the raw layout.
struct LayerData {
  std::vector<float> x;  // [M, hidden]
  // [L, kv_width]: positions before L - M random like x (the earlier tokens' keys and values);
  // the M positions the layer writes are NaN, so a missing append shows.
  std::vector<float> k_cache, v_cache;
  // [L, head_dim / 2] (cos, sin) of position p and frequency i (fp16 values in an f16 layer)
  std::vector<float> rope;
  // Per node: linear: weight and scales; rms_norm: norm_weight; the others: empty.
  std::vector<kernels::ProblemData> params;
};

// Random, never-zero data, the same for the same (layer shape, seed) whatever M and L (weights
// do not depend on them): x, quantized weights and norm weights as kernels::make_random draws
// them, the scales shrunk by 1 / (5 sqrt(K)) so that every projection maps unit-RMS inputs to
// roughly unit-RMS outputs and the layer's output stays O(1). For an f16 layer every float of
// x, the weights and the caches' earlier positions is an fp16 value, so what is uploaded is
// what the reference reads.
LayerData make_layer_data(const Layer& layer, uint64_t seed);

// What tensor `index` holds before the layer runs, as uploaded: x, the caches and the RoPE
// table; null for the tensors nodes compute.
const std::vector<float>* initial_values(const Layer& layer, const LayerData& data, size_t index);

// "rms_norm M=1 N=256" / "q4gsw M=1 N=256 K=256 gs=32" / "sdpa ..." / "add M=1 N=256".
std::string describe(const Node& node);

}  // namespace vktune::engine
