// Walking the layer's graph for its fp64 reference: which rows each node needs, the caches'
// earlier positions taken as uploaded.
#include "tools/engine/layer_reference.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <thread>

#include "tools/engine/node_reference.h"

namespace vktune::engine {
namespace {

using kernels::Reference;

std::vector<uint32_t> all_rows(uint32_t count) {
  std::vector<uint32_t> rows(count);
  std::iota(rows.begin(), rows.end(), 0u);
  return rows;
}

// Per tensor: whether every token row of it is needed, because a cache is computed from it.
std::vector<bool> feeds_cache(const Layer& layer) {
  std::vector<bool> feeds(layer.tensors.size(), false);
  for (auto node = layer.nodes.rbegin(); node != layer.nodes.rend(); ++node) {
    if (layer.tensors[node->output].rows != Rows::context && !feeds[node->output]) continue;
    for (size_t t : node->inputs) {
      if (layer.tensors[t].rows == Rows::tokens) feeds[t] = true;
    }
  }
  return feeds;
}

// `rows` of a reference that holds all M rows.
Reference take_rows(const Reference& all, uint32_t width, std::span<const uint32_t> rows) {
  Reference r;
  for (uint32_t row : rows) {
    const auto begin = uint64_t{row} * width;
    r.values.insert(r.values.end(), all.values.begin() + begin, all.values.begin() + begin + width);
    r.bounds.insert(r.bounds.end(), all.bounds.begin() + begin, all.bounds.begin() + begin + width);
  }
  return r;
}

// What is uploaded is exact; a zero bound would make kernels::check divide by zero, and one of
// 1e-30 still demands the GPU keep these values bit for bit.
Reference uploaded(const std::vector<float>& values) {
  return {std::vector<double>(values.begin(), values.end()),
          std::vector<double>(values.size(), 1e-30)};
}

}  // namespace

std::vector<uint32_t> node_rows(const Layer& layer, size_t node, std::span<const uint32_t> rows) {
  const size_t out = layer.nodes.at(node).output;
  const bool every = layer.tensors[out].rows == Rows::context || feeds_cache(layer)[out];
  return every ? all_rows(layer.m) : std::vector<uint32_t>(rows.begin(), rows.end());
}

std::vector<uint32_t> tensor_rows(const Layer& layer, size_t index,
                                  std::span<const uint32_t> rows) {
  if (layer.tensors.at(index).rows == Rows::context) return all_rows(layer.context);
  if (feeds_cache(layer)[index]) return all_rows(layer.m);
  return std::vector<uint32_t>(rows.begin(), rows.end());
}

LayerReference reference_layer(const Layer& layer, const LayerData& data,
                               std::vector<uint32_t> rows, unsigned threads) {
  std::sort(rows.begin(), rows.end());
  rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
  if (!rows.empty() && rows.back() >= layer.m) {
    throw std::invalid_argument("row " + std::to_string(rows.back()) +
                                " is past M=" + std::to_string(layer.m));
  }
  if (data.params.size() != layer.nodes.size()) {
    throw std::invalid_argument("the layer data does not match the layer");
  }
  LayerReference ref;
  ref.rows = std::move(rows);
  ref.tensors.resize(layer.tensors.size());
  for (size_t t = 0; t < layer.tensors.size(); ++t) {
    const std::vector<float>* initial = initial_values(layer, data, t);
    if (initial == nullptr) continue;
    if (initial->size() != uint64_t{layer.rows(t)} * layer.tensors[t].width) {
      throw std::invalid_argument("the layer data's " + layer.tensors[t].name +
                                  " does not match the layer");
    }
    ref.tensors[t] = uploaded(*initial);
  }
  for (size_t i = 0; i < layer.nodes.size(); ++i) {
    const Node& node = layer.nodes[i];
    const std::vector<uint32_t> computed = node_rows(layer, i, ref.rows);
    std::vector<Reference> taken;  // inputs held on more rows than this node computes
    taken.reserve(node.inputs.size());
    std::vector<const Reference*> inputs;
    for (size_t t : node.inputs) {
      const bool narrower = layer.tensors[t].rows == Rows::tokens &&
                            tensor_rows(layer, t, ref.rows).size() != computed.size();
      if (narrower) taken.push_back(take_rows(ref.tensors[t], layer.tensors[t].width, computed));
      inputs.push_back(narrower ? &taken.back() : &ref.tensors[t]);
    }
    Reference y = reference_node(layer, data, i, inputs, computed, threads);
    Reference& out = ref.tensors[node.output];
    if (layer.tensors[node.output].rows == Rows::tokens) {
      out = std::move(y);
      continue;
    }
    // A cache: the new tokens' rows replace the NaNs uploaded at their positions.
    const uint64_t begin = uint64_t{layer.first_position()} * layer.tensors[node.output].width;
    std::copy(y.values.begin(), y.values.end(), out.values.begin() + begin);
    std::copy(y.bounds.begin(), y.bounds.end(), out.bounds.begin() + begin);
  }
  return ref;
}

Reference reference_node(const Layer& layer, const LayerData& data, size_t index,
                         const std::vector<const Reference*>& inputs,
                         std::span<const uint32_t> rows, unsigned threads) {
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  const Node& node = layer.nodes.at(index);
  if (inputs.size() != node.inputs.size()) {
    throw std::invalid_argument(node.name + " takes " + std::to_string(node.inputs.size()) +
                                " inputs");
  }
  for (size_t j = 0; j < inputs.size(); ++j) {
    const size_t t = node.inputs[j];
    const uint64_t count = layer.tensors[t].rows == Rows::tokens ? rows.size() : layer.context;
    const uint64_t want = count * layer.tensors[t].width;
    if (inputs[j]->values.size() != want || inputs[j]->bounds.size() != want) {
      throw std::invalid_argument(node.name + ": input " + std::to_string(j) + " is not [" +
                                  std::to_string(count) + ", " +
                                  std::to_string(layer.tensors[t].width) + "]");
    }
  }
  Reference y = compute_node(layer, data, index, inputs, rows, threads);
  if (layer.dtype == kernels::DType::f16) {
    // Below fp16's smallest normal (2^-14) the spacing is absolute (2^-24), so storing such an
    // output rounds it by up to 2^-25, not 2^-11 of itself: a bound of at least 2^-14 keeps
    // that within the fp16 output tolerance (2^-11 of the bound). Elementwise nodes on exact
    // inputs have bounds of |y| alone, and a residual sum can land near zero.
    for (double& b : y.bounds) b = std::max(b, 0x1p-14);
  }
  return y;
}

Reference exact(std::span<const float> values) {
  return {std::vector<double>(values.begin(), values.end()),
          std::vector<double>(values.size(), 0.0)};
}

std::vector<uint32_t> rows_to_check(const Layer& layer, double max_macs) {
  double per_row = 0;
  for (const Node& node : layer.nodes) {
    const kernels::Problem& p = node.problem;
    per_row += node.kind == NodeKind::linear      ? double(p.n) * p.k
               : node.kind == NodeKind::attention ? 2.0 * p.heads * p.k * p.n
                                                  : double(p.n);
  }
  const uint32_t count = uint32_t(std::clamp(std::floor(max_macs / per_row), 1.0, double(layer.m)));
  std::vector<uint32_t> rows;
  for (uint32_t i = 0; i < count; ++i) {
    rows.push_back(count == 1 ? 0 : uint32_t(uint64_t{layer.m - 1} * i / (count - 1)));
  }
  return rows;
}

std::vector<float> select_rows(std::span<const float> tensor, uint32_t width,
                               std::span<const uint32_t> rows) {
  std::vector<float> out;
  out.reserve(rows.size() * width);
  for (uint32_t r : rows) {
    const auto row = tensor.subspan(uint64_t{r} * width, width);
    out.insert(out.end(), row.begin(), row.end());
  }
  return out;
}

}  // namespace vktune::engine
