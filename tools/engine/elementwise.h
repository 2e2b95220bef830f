// The engine's own shaders (kernels/glsl/engine_*.comp) for the nodes no kernel family serves:
// which shader a node runs with which defines, and its push constants at a context, which is
// all that changes when a decode loop moves to the next position.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/shader_spec.h"
#include "tools/engine/layer.h"

namespace vktune::engine {

struct ElementwiseShader {
  std::string file;     // "engine_copy.comp"
  Defines defines;      // WG and the storage types of the node's tensors
  std::string key;      // pipeline key: the file's stem and the defines, "engine_copy[IN_F16=1]"
  uint32_t groups = 0;  // workgroups of the dispatch (grid-stride: capped by the device limit)
};

// The shader of node `node` (add, silu_mul or copy) of `layer`, its workgroups capped at
// `max_groups`. Throws std::logic_error for a routed node.
ElementwiseShader elementwise_shader(const Layer& layer, const Node& node, uint32_t max_groups);

// The push constants of node `node` when the layer attends `context` positions (M <= context
// <= layer.context): copy writes the tokens' rows at positions context - M on.
std::vector<std::byte> elementwise_push(const Layer& layer, const Node& node, uint32_t context);

}  // namespace vktune::engine
