// Decode steps over a growing cache: set_context (attention re-asked), one execution, its
// timestamps.
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
  size_t attention = layer.nodes.size();
  for (size_t i = 0; i < layer.nodes.size(); ++i) {
    if (layer.nodes[i].kind == NodeKind::attention) attention = i;
  }
  std::vector<DecodeStep> result;
  for (uint32_t s = 0; s < steps; ++s) {
    graph.set_context(first + s);
    // Warm-up runs at the first step's position only: they write what that step rewrites.
    const GraphTimes t = graph.time(1, s == 0 ? warmup : 0);
    result.push_back({first + s, t.total_ns,
                      attention < layer.nodes.size() ? graph.routes()[attention].key : ""});
  }
  return result;
}

std::vector<AttentionSpan> attention_spans(const std::vector<DecodeStep>& steps) {
  std::vector<AttentionSpan> spans;
  for (const DecodeStep& s : steps) {
    if (spans.empty() || spans.back().key != s.attention) {
      spans.push_back({s.attention, s.context, s.context});
    } else {
      spans.back().last = s.context;
    }
  }
  return spans;
}

std::string describe(const std::vector<AttentionSpan>& spans) {
  if (spans.empty()) return "no steps";
  const size_t changes = spans.size() - 1;
  std::string text = changes == 0 ? "unchanged" : std::to_string(changes);
  if (changes > 0) text += changes == 1 ? " change" : " changes";
  for (size_t i = 0; i < spans.size(); ++i) {
    const AttentionSpan& s = spans[i];
    text += i == 0 ? ": " : ", ";
    text += s.key;
    if (changes > 0 && i + 1 == spans.size()) {
      text += " from L ";
      text += std::to_string(s.first);
    } else {
      text += " for L ";
      text += std::to_string(s.first);
      if (s.last != s.first) {
        text += '-';
        text += std::to_string(s.last);
      }
    }
  }
  return text;
}

LayerData as_left(const Graph& graph, LayerData data) {
  const Layer& layer = graph.layer();
  data.k_cache = graph.download(layer.tensor("k_cache"));
  data.v_cache = graph.download(layer.tensor("v_cache"));
  return data;
}

}  // namespace vktune::engine
