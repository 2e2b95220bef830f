// The fp64 reference of one node of the decoder layer, with the error bound it carries: what
// a correct fp32 node's error is measured against (kernels::check), given its inputs' bounds.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "kernels/families/reference.h"
#include "tools/engine/layer.h"

namespace vktune::engine {

// Node `node` of `layer` over the token rows `rows` (ascending, each < M). `inputs`, one per
// node input: a token tensor's values and bounds over `rows` ([rows.size(), width]), a cache
// or the RoPE table whole ([L, width]; exact inputs have zero bounds). The result is
// [rows.size(), width]: for a node writing a cache, the rows it writes (positions L - M + row).
// Bounds: for one node on exact inputs the kernels' own (y = W x: sum_k |w x|; attention:
// sdpa_reference's; norms, adds, silu * mul, RoPE, copies: the output's magnitude); through the
// graph each node adds the error its inputs bring: root-sum-square over a sum's terms
// (rounding errors of different terms are independent, as the kernels' sqrt(K) tolerance
// already assumes), first-order for norms, silu, RoPE and the softmax. Linear nodes are split
// over `threads` threads by output feature.
kernels::Reference compute_node(const Layer& layer, const LayerData& data, size_t node,
                                const std::vector<const kernels::Reference*>& inputs,
                                std::span<const uint32_t> rows, unsigned threads);

}  // namespace vktune::engine
