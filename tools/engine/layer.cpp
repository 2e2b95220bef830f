// Building the decoder layer's graph and drawing its random weights.
#include "tools/engine/layer.h"

#include <cmath>
#include <stdexcept>

#include "kernels/float16.h"

namespace vktune::engine {
namespace {

class Builder {
 public:
  explicit Builder(Layer& layer) : layer_(layer) {}

  size_t tensor(std::string name, uint32_t width) {
    layer_.tensors.push_back({std::move(name), width});
    return layer_.tensors.size() - 1;
  }
  size_t norm(std::string name, size_t x, std::string out) {
    const uint32_t w = layer_.tensors[x].width;
    return node(std::move(name), NodeKind::rms_norm, {x}, std::move(out), w,
                {kernels::Op::rms_norm, layer_.m, w, w, 0, false});
  }
  size_t linear(std::string name, size_t x, uint32_t n, std::string out) {
    const uint32_t k = layer_.tensors[x].width;
    return node(std::move(name), NodeKind::linear, {x}, std::move(out), n,
                {kernels::Op::q4gsw, layer_.m, n, k, layer_.shape.group_size, false});
  }
  size_t elementwise(std::string name, NodeKind kind, size_t a, size_t b, std::string out) {
    const uint32_t w = layer_.tensors[a].width;
    if (layer_.tensors[b].width != w) throw std::logic_error(name + ": operand widths differ");
    return node(std::move(name), kind, {a, b}, std::move(out), w, {});
  }

 private:
  size_t node(std::string name, NodeKind kind, std::vector<size_t> inputs, std::string out,
              uint32_t width, kernels::Problem problem) {
    problem.m = layer_.m;
    problem.n = width;
    problem.dtype = layer_.dtype;
    if (kind == NodeKind::linear || kind == NodeKind::rms_norm) {
      if (const std::string error = kernels::validate(problem); !error.empty()) {
        throw std::invalid_argument(name + " (" + kernels::describe(problem) + "): " + error);
      }
    }
    const size_t output = tensor(std::move(out), width);
    layer_.nodes.push_back({std::move(name), kind, std::move(inputs), output, problem});
    return output;
  }

  Layer& layer_;
};

}  // namespace

size_t Layer::tensor(std::string_view name) const {
  for (size_t i = 0; i < tensors.size(); ++i) {
    if (tensors[i].name == name) return i;
  }
  throw std::out_of_range("the layer has no tensor \"" + std::string(name) + "\"");
}

Layer make_layer(const tuner::LayerShape& shape, uint32_t m, kernels::DType dtype) {
  if (m == 0) throw std::invalid_argument("M (tokens) must be at least 1");
  Layer layer;
  layer.shape = shape;
  layer.m = m;
  layer.dtype = dtype;
  Builder b(layer);
  const uint32_t h = shape.hidden;
  const size_t x = b.tensor("x", h);
  const size_t xn = b.norm("attn_norm", x, "x_norm");
  const size_t q = b.linear("q_proj", xn, h, "q");
  const size_t k = b.linear("k_proj", xn, shape.kv_width, "k");
  const size_t v = b.linear("v_proj", xn, shape.kv_width, "v");
  const size_t o = b.linear("o_proj", q, h, "o");  // attention would sit between q and o
  const size_t h1 = b.elementwise("attn_residual", NodeKind::add, x, o, "h");
  const size_t hn = b.norm("ffn_norm", h1, "h_norm");
  const size_t gate = b.linear("gate_proj", hn, shape.ffn, "gate");
  const size_t up = b.linear("up_proj", hn, shape.ffn, "up");
  const size_t act = b.elementwise("silu_mul", NodeKind::silu_mul, gate, up, "act");
  const size_t down = b.linear("down_proj", act, h, "down");
  const size_t out = b.elementwise("ffn_residual", NodeKind::add, h1, down, "out");
  layer.outputs = {out, k, v};
  return layer;
}

LayerData make_layer_data(const Layer& layer, uint64_t seed) {
  LayerData data;
  {
    kernels::Problem input{kernels::Op::rms_norm, layer.m, layer.shape.hidden,
                           layer.shape.hidden,    0,       false};
    input.dtype = layer.dtype;
    data.x = kernels::make_random(input, seed).x;
  }
  for (size_t i = 0; i < layer.nodes.size(); ++i) {
    const Node& node = layer.nodes[i];
    kernels::ProblemData params;
    if (node.routed()) {
      // Drawn at M = 1 so the weights are the same whatever the layer's M.
      kernels::Problem one = node.problem;
      one.m = 1;
      params = kernels::make_random(one, seed * 1000003u + 17u * (i + 1));
      params.x.clear();
      const float shrink = 1.0f / (5.0f * std::sqrt(float(node.problem.k)));
      for (float& s : params.scales) {
        s *= shrink;
        if (layer.dtype == kernels::DType::f16) s = kernels::round_to_half(s);
      }
    }
    data.params.push_back(std::move(params));
  }
  return data;
}

std::string_view elementwise_shader(NodeKind kind) noexcept {
  switch (kind) {
    case NodeKind::add:
      return "engine_add";
    case NodeKind::silu_mul:
      return "engine_silu_mul";
    default:
      return {};
  }
}

std::string describe(const Node& node) {
  if (node.routed()) return kernels::describe(node.problem);
  return std::string(node.kind == NodeKind::add ? "add" : "silu_mul") +
         " M=" + std::to_string(node.problem.m) + " N=" + std::to_string(node.problem.n);
}

}  // namespace vktune::engine
