// Decode steps over a growing cache: set_context, one execution, its timestamps.
#include "tools/engine/decode_loop.h"

#include <stdexcept>
#include <string>

namespace vktune::engine {

std::vector<DecodeStep> run_decode(Graph& graph, uint32_t first, uint32_t steps,
                                   uint32_t warmup) {
  const Layer& layer = graph.layer();
  if (layer.m != 1 || steps == 0 || first == 0 || first + uint64_t{steps} - 1 > layer.context) {
    throw std::invalid_argument(
        "decode: " + std::to_string(steps) + " step(s) from context " + std::to_string(first) +
        " need an M=1 graph whose cache holds the last step's context; it has M=" +
        std::to_string(layer.m) + " and " + std::to_string(layer.context) + " positions");
  }
  std::vector<DecodeStep> result;
  for (uint32_t s = 0; s < steps; ++s) {
    graph.set_context(first + s);
    // Warm-up runs at the first step's position only: they write what that step rewrites.
    const GraphTimes t = graph.time(1, s == 0 ? warmup : 0);
    result.push_back({first + s, t.total_ns});
  }
  return result;
}

LayerData as_left(const Graph& graph, LayerData data) {
  const Layer& layer = graph.layer();
  data.k_cache = graph.download(layer.tensor("k_cache"));
  data.v_cache = graph.download(layer.tensor("v_cache"));
  return data;
}

}  // namespace vktune::engine
