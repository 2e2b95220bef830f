// A decode loop through one built graph: one token (M = 1) per step, appended at the end of a
// cache that grows by one position a step. Only push constants change between steps
// (Graph::set_context), so the loop measures what an engine's decode loop runs, and the
// attention node's pipeline where the context crosses into another tuned L bucket.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tools/engine/graph.h"

namespace vktune::engine {

struct DecodeStep {
  uint32_t context = 0;  // L of the step: its token sits at position L - 1
  double ns = 0;         // GPU time of the whole layer (timestamps), one execution
  std::string attention;  // the attention node's variant at this step (its key)
};

// Runs `steps` (>= 1) steps at contexts `first` .. `first` + steps - 1, after `warmup`
// untimed executions at `first`, and leaves the graph at the last context. Each step re-asks
// the runtime for attention (Graph::set_context), so the variant follows the context's bucket. The graph must be
// built for M = 1 and a layer context (the cache's capacity) of at least the last step's.
// Throws std::invalid_argument otherwise, vk::Error on device failures.
std::vector<DecodeStep> run_decode(Graph& graph, uint32_t first, uint32_t steps,
                                   uint32_t warmup = 2);

// A run of consecutive steps whose attention ran one variant.
struct AttentionSpan {
  std::string key;
  uint32_t first = 0, last = 0;  // contexts of its first and last steps
  friend bool operator==(const AttentionSpan&, const AttentionSpan&) = default;
};
// The spans of `steps` in order: one when attention never switched, one more per switch.
std::vector<AttentionSpan> attention_spans(const std::vector<DecodeStep>& steps);
// "unchanged: K for L 500-563" or "1 change: K1 for L 500-1023, K2 from L 1024".
std::string describe(const std::vector<AttentionSpan>& spans);

// The data the last step ran on: `data` with the caches as the GPU holds them now (the earlier
// steps' keys and values included), for check_layer after run_decode.
LayerData as_left(const Graph& graph, LayerData data);

}  // namespace vktune::engine
