// Building the decoder layer's graph and drawing its random weights and cache.
#include "tools/engine/layer.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "kernels/float16.h"

namespace vktune::engine {
namespace {

using kernels::DType;

class Builder {
 public:
  explicit Builder(Layer& layer) : layer_(layer) {}

  size_t tensor(std::string name, uint32_t width, Rows rows, DType dtype) {
    layer_.tensors.push_back({std::move(name), width, rows, dtype});
    return layer_.tensors.size() - 1;
  }
  // A [M, width] activation in the layer's dtype.
  size_t activation(std::string name, uint32_t width) {
    return tensor(std::move(name), width, Rows::tokens, layer_.dtype);
  }
  size_t norm(std::string name, size_t x, std::string out) {
    const uint32_t w = width(x);
    return node(std::move(name), NodeKind::rms_norm, {x}, activation(std::move(out), w),
                {kernels::Op("rms_norm"), layer_.m, w, w, 0, false});
  }
  size_t linear(std::string name, size_t x, uint32_t n, std::string out) {
    return node(std::move(name), NodeKind::linear, {x}, activation(std::move(out), n),
                {kernels::Op("q4gsw"), layer_.m, n, width(x), layer_.shape.group_size, false});
  }
  size_t elementwise(std::string name, NodeKind kind, size_t a, size_t b, std::string out) {
    if (width(b) != width(a)) throw std::logic_error(name + ": operand widths differ");
    return node(std::move(name), kind, {a, b}, activation(std::move(out), width(a)), {});
  }
  // RoPE of x's `heads` heads at the tokens' positions into a new activation `out`.
  size_t rope(std::string name, size_t x, size_t table, uint32_t heads, std::string out) {
    kernels::Problem p{kernels::Op("rope"), layer_.m, layer_.context, layer_.shape.head_dim, 0, false};
    p.heads = heads;
    return node(std::move(name), NodeKind::rope, {x, table}, activation(std::move(out), width(x)),
                p);
  }
  size_t copy(std::string name, size_t x, size_t out) {
    return node(std::move(name), NodeKind::copy, {x}, out, {});
  }
  size_t attention(std::string name, size_t q, size_t k_cache, size_t v_cache, std::string out) {
    const models::LayerShape& s = layer_.shape;
    kernels::Problem p{kernels::Op("sdpa"), layer_.m, layer_.context, s.head_dim, 0, false};
    p.heads = s.heads;
    p.kv_heads = s.kv_heads;
    return node(std::move(name), NodeKind::attention, {q, k_cache, v_cache},
                activation(std::move(out), s.q_width()), p);
  }

 private:
  uint32_t width(size_t t) const { return layer_.tensors[t].width; }

  size_t node(std::string name, NodeKind kind, std::vector<size_t> inputs, size_t output,
              kernels::Problem problem) {
    problem.m = layer_.m;
    problem.dtype = layer_.dtype;
    if (problem.n == 0) problem.n = width(output);  // given where N is the context
    Node n{std::move(name), kind, std::move(inputs), output, problem};
    if (n.routed()) {
      if (const std::string error = kernels::validate(problem); !error.empty()) {
        throw std::invalid_argument(n.name + " (" + kernels::describe(problem) + "): " + error);
      }
    }
    layer_.nodes.push_back(std::move(n));
    return output;
  }

  Layer& layer_;
};

// The shape errors make_layer names before any node is built, so the message says what to fix
// rather than which kernel problem came out wrong.
void validate(const models::LayerShape& s, uint32_t m, uint32_t context) {
  auto fail = [](const std::string& text) { throw std::invalid_argument(text); };
  if (m == 0) fail("M (tokens) must be at least 1");
  const std::string l = "context L=" + std::to_string(context);
  if (context == 0) fail(l + " is empty: L counts the cache positions attended, new tokens included");
  if (context < m) {
    fail(l + " < M=" + std::to_string(m) +
         ": the M new tokens are appended to the cache, so L must be at least M");
  }
  if (s.heads == 0 || s.kv_heads == 0 || s.head_dim == 0) {
    fail("heads, kv_heads and head_dim must be at least 1");
  }
  if (s.heads % s.kv_heads != 0) {
    fail("heads=" + std::to_string(s.heads) + " is not a multiple of kv_heads=" +
         std::to_string(s.kv_heads) + ": every KV head serves the same number of query heads");
  }
  if (s.head_dim % 2 != 0) {
    fail("head_dim=" + std::to_string(s.head_dim) + " is odd: RoPE rotates pairs of dimensions");
  }
}

}  // namespace

size_t Layer::tensor(std::string_view name) const {
  for (size_t i = 0; i < tensors.size(); ++i) {
    if (tensors[i].name == name) return i;
  }
  throw std::out_of_range("the layer has no tensor \"" + std::string(name) + "\"");
}

uint32_t Layer::rows(size_t index) const {
  return tensors.at(index).rows == Rows::tokens ? m : context;
}

Layer make_layer(const models::LayerShape& shape, uint32_t m, uint32_t context, DType dtype) {
  validate(shape, m, context);
  Layer layer;
  layer.shape = shape;
  layer.m = m;
  layer.context = context;
  layer.dtype = dtype;
  Builder b(layer);
  const uint32_t h = shape.hidden;
  const size_t x = b.activation("x", h);
  const size_t table = b.tensor("rope_table", shape.head_dim, Rows::context, dtype);
  const size_t k_cache = b.tensor("k_cache", shape.kv_width(), Rows::context, dtype);
  const size_t v_cache = b.tensor("v_cache", shape.kv_width(), Rows::context, dtype);
  const size_t xn = b.norm("attn_norm", x, "x_norm");
  const size_t q = b.linear("q_proj", xn, shape.q_width(), "q");
  const size_t k = b.linear("k_proj", xn, shape.kv_width(), "k");
  const size_t v = b.linear("v_proj", xn, shape.kv_width(), "v");
  const size_t q_rot = b.rope("rope_q", q, table, shape.heads, "q_rot");
  b.copy("append_k", b.rope("rope_k", k, table, shape.kv_heads, "k_rot"), k_cache);
  b.copy("append_v", v, v_cache);
  const size_t attn = b.attention("attention", q_rot, k_cache, v_cache, "attn");
  const size_t o = b.linear("o_proj", attn, h, "o");
  const size_t h1 = b.elementwise("attn_residual", NodeKind::add, x, o, "h");
  const size_t hn = b.norm("ffn_norm", h1, "h_norm");
  const size_t gate = b.linear("gate_proj", hn, shape.ffn, "gate");
  const size_t up = b.linear("up_proj", hn, shape.ffn, "up");
  const size_t act = b.elementwise("silu_mul", NodeKind::silu_mul, gate, up, "act");
  const size_t down = b.linear("down_proj", act, h, "down");
  const size_t out = b.elementwise("ffn_residual", NodeKind::add, h1, down, "out");
  layer.outputs = {out, k_cache, v_cache};
  return layer;
}

LayerData make_layer_data(const Layer& layer, uint64_t seed) {
  const models::LayerShape& s = layer.shape;
  LayerData data;
  {
    kernels::Problem input{kernels::Op("rms_norm"), layer.m, s.hidden, s.hidden, 0, false};
    input.dtype = layer.dtype;
    data.x = kernels::make_random(input, seed).x;
  }
  {
    kernels::Problem cache{kernels::Op("sdpa"), 1, layer.context, s.head_dim, 0, false};
    cache.heads = s.heads;
    cache.kv_heads = s.kv_heads;
    cache.dtype = layer.dtype;  // an fp16 cache's earlier keys and values drawn as fp16 values
    kernels::ProblemData d = kernels::make_random(cache, seed * 7919u + 5u);
    const uint64_t written = uint64_t{layer.first_position()} * s.kv_width();
    for (auto* c : {&d.keys, &d.values}) {
      std::fill(c->begin() + written, c->end(), std::numeric_limits<float>::quiet_NaN());
    }
    data.k_cache = std::move(d.keys);
    data.v_cache = std::move(d.values);
  }
  const uint32_t pairs = s.head_dim / 2;
  for (uint32_t p = 0; p < layer.context; ++p) {
    for (uint32_t i = 0; i < pairs; ++i) {
      // Llama's frequencies theta^(-2i / D), in fp64 so the table is exact to fp32 rounding
      // (GLSL's sin and cos are only good to 2^-11 absolute).
      const double angle = p * std::pow(s.rope_theta, -2.0 * i / s.head_dim);
      for (const double v : {std::cos(angle), std::sin(angle)}) {
        data.rope.push_back(layer.dtype == DType::f16 ? kernels::round_to_half(float(v)) : float(v));
      }
    }
  }
  for (size_t i = 0; i < layer.nodes.size(); ++i) {
    const Node& node = layer.nodes[i];
    kernels::ProblemData params;
    if (node.kind == NodeKind::linear || node.kind == NodeKind::rms_norm) {
      // Drawn at M = 1 so the weights are the same whatever the layer's M.
      kernels::Problem one = node.problem;
      one.m = 1;
      params = kernels::make_random(one, seed * 1000003u + 17u * (i + 1));
      params.x.clear();
      const float shrink = 1.0f / (5.0f * std::sqrt(float(node.problem.k)));
      for (float& scale : params.scales) {
        scale *= shrink;
        if (layer.dtype == DType::f16) scale = kernels::round_to_half(scale);
      }
    }
    data.params.push_back(std::move(params));
  }
  return data;
}

const std::vector<float>* initial_values(const Layer& layer, const LayerData& data, size_t index) {
  const std::string& name = layer.tensors.at(index).name;
  if (index == 0) return &data.x;
  if (name == "rope_table") return &data.rope;
  if (name == "k_cache") return &data.k_cache;
  if (name == "v_cache") return &data.v_cache;
  return nullptr;
}

std::string describe(const Node& node) {
  if (node.routed()) return kernels::describe(node.problem);
  const char* kind = node.kind == NodeKind::add        ? "add"
                     : node.kind == NodeKind::silu_mul ? "silu_mul"
                                                       : "copy";
  return std::string(kind) + " M=" + std::to_string(node.problem.m) +
         " N=" + std::to_string(node.problem.n);
}

}  // namespace vktune::engine
