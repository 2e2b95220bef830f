// The CPU double-precision reference of a whole decoder layer, with a per-output error bound
// propagated through the graph (tools/engine/node_reference.h), so that the GPU's result can be
// checked end to end.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "kernels/families/reference.h"
#include "tools/engine/layer.h"

namespace vktune::engine {

// A token's output depends on its own row and, through attention, on the keys and values of
// every earlier token: the checked rows are computed everywhere, the cache's side (norm, k and v
// projections, RoPE and append) for every token.
struct LayerReference {
  std::vector<uint32_t> rows;  // the checked token rows, ascending
  // Per tensor, over tensor_rows(): values [rows, width] and bounds, the scale the error of a
  // correct fp32 graph is measured against (kernels::check).
  std::vector<kernels::Reference> tensors;
};

// The token rows node `node` is computed on when `rows` are checked: every token's when its
// output feeds a cache (a cache-writing node: the positions L - M + row it writes), else
// `rows`.
std::vector<uint32_t> node_rows(const Layer& layer, size_t node, std::span<const uint32_t> rows);
// The rows a LayerReference holds of tensor `index`: all L of a cache or the table, all M of a
// token tensor that feeds a cache, else `rows`.
std::vector<uint32_t> tensor_rows(const Layer& layer, size_t index, std::span<const uint32_t> rows);

// The reference of node `node` alone on `inputs` (one per node input, laid out as
// compute_node takes them) over the token rows `rows`, with `threads` threads (0: the
// hardware's). In an f16 layer no bound is below 2^-14, where fp16 rounding turns absolute.
kernels::Reference reference_node(const Layer& layer, const LayerData& data, size_t node,
                                  const std::vector<const kernels::Reference*>& inputs,
                                  std::span<const uint32_t> rows, unsigned threads = 0);

// `values` taken as exact (zero bounds): a GPU tensor fed to reference_node.
kernels::Reference exact(std::span<const float> values);

// Computes every tensor of `layer` on the rows `rows` (each < layer.m) need, with `threads`
// threads (0: the hardware's). Throws std::invalid_argument for a row out of range or data that
// does not match the layer.
LayerReference reference_layer(const Layer& layer, const LayerData& data,
                               std::vector<uint32_t> rows, unsigned threads = 0);

// The rows worth checking: all of them when the reference of M rows costs at most
// `max_macs` multiply-adds, else as many as fit, spread evenly and including the first and last.
std::vector<uint32_t> rows_to_check(const Layer& layer, double max_macs = 4e9);

// The rows `rows` of a [rows, width] tensor downloaded from the GPU.
std::vector<float> select_rows(std::span<const float> tensor, uint32_t width,
                               std::span<const uint32_t> rows);

}  // namespace vktune::engine
