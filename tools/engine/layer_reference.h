// The CPU double-precision reference of a whole decoder layer, with a per-output error bound
// propagated through the graph, so that the GPU's result can be checked end to end.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "kernels/families/reference.h"
#include "tools/engine/layer.h"

namespace vktune::engine {

// Rows are independent (no attention), so the reference of a subset of rows is exact for them.
struct LayerReference {
  std::vector<uint32_t> rows;  // the rows computed, ascending
  // Per tensor of the layer: values [rows.size(), width] and bounds, the scale the error of a
  // correct fp32 graph is measured against (kernels::check). For one node on exact inputs the
  // bound is the kernels' own (y = W x: sum_k |w x|; norms, adds, silu * mul: the output's
  // magnitude). Through the graph each node adds the error its inputs bring: root-sum-square
  // over a sum's terms (rounding errors of different terms are independent, as the kernels'
  // sqrt(K) tolerance already assumes), first-order for norms and silu.
  std::vector<kernels::Reference> tensors;
};

// The reference of node `node` alone on `inputs` (one per node input, [rows, width] values with
// their bounds; exact inputs have zero bounds), over `rows` rows, with `threads` threads. In an
// f16 layer no bound is below 2^-14, where fp16 rounding turns absolute.
kernels::Reference reference_node(const Layer& layer, const LayerData& data, size_t node,
                                  const std::vector<const kernels::Reference*>& inputs, size_t rows,
                                  unsigned threads = 0);

// `values` taken as exact (zero bounds): a GPU tensor fed to reference_node.
kernels::Reference exact(std::span<const float> values);

// Computes `rows` (each < layer.m) of every tensor of `layer` with `threads` threads (0: the
// hardware's). Throws std::invalid_argument for a row out of range or data that does not
// match the layer.
LayerReference reference_layer(const Layer& layer, const LayerData& data,
                               std::vector<uint32_t> rows, unsigned threads = 0);

// The rows worth checking: all of them when the reference of M rows costs at most
// `max_macs` multiply-adds, else as many as fit, spread evenly and including the first and last.
std::vector<uint32_t> rows_to_check(const Layer& layer, double max_macs = 4e9);

// The rows `rows` of a [M, width] tensor downloaded from the GPU.
std::vector<float> select_rows(std::span<const float> tensor, uint32_t width,
                               std::span<const uint32_t> rows);

}  // namespace vktune::engine
