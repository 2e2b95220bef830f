// The engine shaders' defines and push constants (their layouts are the shaders' Push blocks).
#include "tools/engine/elementwise.h"

#include <algorithm>
#include <stdexcept>

#include "kernels/family.h"
#include "kernels/vk/command_buffer.h"

namespace vktune::engine {
namespace {

constexpr uint32_t kWg = 256;

struct CountPush {  // engine_add, engine_silu_mul
  uint32_t count, pad0, pad1, pad2;
};
struct CopyPush {  // engine_copy
  uint32_t count, offset, pad0, pad1;
};

std::string flag(kernels::DType dtype) { return dtype == kernels::DType::f16 ? "1" : "0"; }

template <typename T>
std::vector<std::byte> bytes(const T& value) {
  const auto span = vk::push_bytes(value);
  return {span.begin(), span.end()};
}

// Where the node's rows land: the caches take the new tokens at their positions.
uint32_t dst_row(const Layer& layer, const Node& node, uint32_t context) {
  return layer.tensors[node.output].rows == Rows::context ? context - layer.m : 0;
}

}  // namespace

ElementwiseShader elementwise_shader(const Layer& layer, const Node& node, uint32_t max_groups) {
  const kernels::DType in = layer.tensors[node.inputs[0]].dtype;
  const kernels::DType out = layer.tensors[node.output].dtype;
  ElementwiseShader s;
  std::string stem;
  const uint64_t items = uint64_t{node.problem.m} * node.problem.n;
  switch (node.kind) {
    case NodeKind::add:
    case NodeKind::silu_mul:
      stem = node.kind == NodeKind::add ? "engine_add" : "engine_silu_mul";
      s.defines = {{"F16", flag(out)}};
      break;
    case NodeKind::copy:
      stem = "engine_copy";
      s.defines = {{"IN_F16", flag(in)}, {"OUT_F16", flag(out)}};
      break;
    default:
      throw std::logic_error(node.name + " is routed, not an engine shader");
  }
  s.file = stem + ".comp";
  s.key = stem + "[";
  for (const auto& [name, value] : s.defines) s.key += name + "=" + value + ",";
  s.key.back() = ']';
  s.defines.emplace_back("WG", std::to_string(kWg));
  s.groups = uint32_t(std::clamp<uint64_t>(kernels::ceil_div(items, kWg), 1, max_groups));
  return s;
}

std::vector<std::byte> elementwise_push(const Layer& layer, const Node& node, uint32_t context) {
  const uint32_t count = node.problem.m * node.problem.n;
  switch (node.kind) {
    case NodeKind::copy:
      return bytes(CopyPush{count, dst_row(layer, node, context) * node.problem.n, 0, 0});
    default:
      return bytes(CountPush{count, 0, 0, 0});
  }
}

}  // namespace vktune::engine
