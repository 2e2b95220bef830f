// The weight-bound part of a Llama decoder layer as a graph of nodes over [M, width] tensors of
// one dtype (fp32 or fp16), and its random weights:
//   x -> attn_norm -> q, k, v -> o (fed q: attention is out of scope) -> + x -> ffn_norm
//     -> gate, up -> silu(gate) * up -> down -> + residual -> out
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "kernels/families/reference.h"
#include "kernels/problem.h"
#include "tuner/shape_sets.h"

namespace vktune::engine {

enum class NodeKind {
  rms_norm,  // y = rms_norm(x) * w                      (routed: a kernel family)
  linear,    // y = q4gsw(x, W)                          (routed: a kernel family)
  add,       // y = a + b                                (engine_add.comp)
  silu_mul,  // y = silu(a) * b, silu(a) = a / (1 + e^-a) (engine_silu_mul.comp)
};

struct TensorSpec {
  std::string name;
  uint32_t width = 0;  // [M, width] in the layer's dtype
};

struct Node {
  std::string name;  // "attn_norm", "q_proj", ...
  NodeKind kind = NodeKind::linear;
  std::vector<size_t> inputs;  // tensor indices: x first (add: a, b; silu_mul: gate, up)
  size_t output = 0;           // tensor index; every tensor is written by exactly one node
  // What the runtime is asked for routed nodes (op, M, N, K, group size); for elementwise nodes
  // only m and n (the width) are meaningful.
  kernels::Problem problem;

  bool routed() const noexcept { return kind == NodeKind::rms_norm || kind == NodeKind::linear; }
};

struct Layer {
  tuner::LayerShape shape;
  uint32_t m = 0;                   // tokens: rows of every tensor
  kernels::DType dtype = kernels::DType::f32;  // of every tensor and routed problem
  std::vector<TensorSpec> tensors;  // tensors[0] is the input x [M, hidden]
  std::vector<Node> nodes;          // in execution order; inputs are produced earlier
  std::vector<size_t> outputs;      // what the check compares: out, k, v

  // The index of the tensor named `name`; throws std::out_of_range.
  size_t tensor(std::string_view name) const;
};

// The layer of `shape` for `m` tokens in `dtype`. Throws std::invalid_argument naming the node
// when a problem is invalid (e.g. hidden % group_size != 0).
Layer make_layer(const tuner::LayerShape& shape, uint32_t m,
                 kernels::DType dtype = kernels::DType::f32);

// Host data of a layer, in the raw layout.
struct LayerData {
  std::vector<float> x;  // [M, hidden]
  // Per node: linear: weight and scales; rms_norm: norm_weight; elementwise: empty.
  std::vector<kernels::ProblemData> params;
};

// Random, never-zero data, the same for the same (layer shape, seed) whatever M (weights do not
// depend on it): x, quantized weights and norm weights as kernels::make_random draws them, the
// scales shrunk by 1 / (5 sqrt(K)) so that every projection maps unit-RMS inputs to roughly
// unit-RMS outputs and the layer's output stays O(1). For an f16 layer every float is an fp16
// value.
LayerData make_layer_data(const Layer& layer, uint64_t seed);

// The shader of an elementwise node: "engine_add" or "engine_silu_mul" (kernels/glsl/<name>.comp);
// empty for routed nodes.
std::string_view elementwise_shader(NodeKind kind) noexcept;

// "rms_norm M=1 N=256" / "q4gsw M=1 N=256 K=256 gs=32" / "add M=1 N=256".
std::string describe(const Node& node);

}  // namespace vktune::engine
