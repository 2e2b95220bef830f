// The layer's fp64 reference, node by node over the selected rows; linear nodes are split over
// threads by output feature.
#include "tools/engine/layer_reference.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <thread>

namespace vktune::engine {
namespace {

using kernels::Reference;

// Runs body(begin, end) over [0, count) split into `threads` contiguous chunks.
template <typename Body>
void parallel_for(uint32_t count, unsigned threads, const Body& body) {
  threads = std::max(1u, std::min<unsigned>(threads, count));
  if (threads == 1) {
    body(0u, count);
    return;
  }
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t) {
    const uint32_t begin = uint32_t(uint64_t{count} * t / threads);
    const uint32_t end = uint32_t(uint64_t{count} * (t + 1) / threads);
    pool.emplace_back([&body, begin, end] { body(begin, end); });
  }
  for (std::thread& th : pool) th.join();
}

Reference zeros(size_t rows, uint32_t width) {
  return {std::vector<double>(rows * width, 0.0), std::vector<double>(rows * width, 0.0)};
}

// y = x * inv * w per row, inv = 1 / sqrt(mean(x^2) + eps). The error of y_i is that of x_i
// scaled by inv * |w_i|, plus that of inv: d inv = -inv^3 * mean(x dx).
Reference rms_norm(const kernels::Problem& p, const Reference& x, const std::vector<float>& w,
                   size_t rows) {
  Reference y = zeros(rows, p.n);
  for (size_t r = 0; r < rows; ++r) {
    const double* xv = x.values.data() + r * p.n;
    const double* xb = x.bounds.data() + r * p.n;
    double sum = 0, spread = 0;
    for (uint32_t i = 0; i < p.n; ++i) {
      sum += xv[i] * xv[i];
      spread += (xv[i] * xb[i]) * (xv[i] * xb[i]);
    }
    const double inv = 1.0 / std::sqrt(sum / p.n + p.eps);
    const double dinv = inv * inv * inv * std::sqrt(spread) / p.n;
    for (uint32_t i = 0; i < p.n; ++i) {
      const double v = xv[i] * inv * w[i];
      y.values[r * p.n + i] = v;
      y.bounds[r * p.n + i] =
          std::abs(v) + std::abs(w[i]) * (xb[i] * inv + std::abs(xv[i]) * dinv) + 1e-30;
    }
  }
  return y;
}

// y = W x per row: bound = sum |w x| + sqrt(sum (w bound(x))^2).
Reference linear(const kernels::Problem& p, const Reference& x, const kernels::ProblemData& d,
                 size_t rows, unsigned threads) {
  Reference y = zeros(rows, p.n);
  parallel_for(p.n, threads, [&](uint32_t begin, uint32_t end) {
    std::vector<double> w(p.k);
    for (uint32_t n = begin; n < end; ++n) {
      const uint8_t* row = d.weight.data() + uint64_t{n} * (p.k / 2);
      for (uint32_t k = 0; k < p.k; ++k) {
        const int q = (row[k / 2] >> (4 * (k % 2))) & 0xF;
        w[k] = (q - 8) * double{d.scales[uint64_t{k / p.group_size} * p.n + n]};
      }
      for (size_t r = 0; r < rows; ++r) {
        const double* xv = x.values.data() + r * p.k;
        const double* xb = x.bounds.data() + r * p.k;
        double sum = 0, bound = 0, carried = 0;
        for (uint32_t k = 0; k < p.k; ++k) {
          sum += w[k] * xv[k];
          bound += std::abs(w[k] * xv[k]);
          carried += (w[k] * xb[k]) * (w[k] * xb[k]);
        }
        y.values[r * p.n + n] = sum;
        y.bounds[r * p.n + n] = bound + std::sqrt(carried) + 1e-30;
      }
    }
  });
  return y;
}

Reference add(const Reference& a, const Reference& b) {
  Reference y = a;
  for (size_t i = 0; i < y.values.size(); ++i) {
    y.values[i] = a.values[i] + b.values[i];
    y.bounds[i] = a.bounds[i] + b.bounds[i] + std::abs(y.values[i]) + 1e-30;
  }
  return y;
}

// y = silu(g) * u with |silu'| <= 1.1; exp and the division add a few ulps of |y|.
Reference silu_mul(const Reference& g, const Reference& u) {
  Reference y = g;
  for (size_t i = 0; i < y.values.size(); ++i) {
    const double gv = g.values[i], uv = u.values[i];
    const double s = gv / (1.0 + std::exp(-gv));
    y.values[i] = s * uv;
    y.bounds[i] = 1.1 * g.bounds[i] * std::abs(uv) + std::abs(s) * u.bounds[i] +
                  2 * std::abs(y.values[i]) + 1e-30;
  }
  return y;
}

Reference compute_node(const Layer& layer, const LayerData& data, size_t index,
                       const std::vector<const Reference*>& inputs, size_t rows, unsigned threads) {
  const Node& node = layer.nodes[index];
  switch (node.kind) {
    case NodeKind::rms_norm:
      return rms_norm(node.problem, *inputs[0], data.params.at(index).norm_weight, rows);
    case NodeKind::linear:
      return linear(node.problem, *inputs[0], data.params.at(index), rows, threads);
    case NodeKind::add:
      return add(*inputs[0], *inputs[1]);
    case NodeKind::silu_mul:
      return silu_mul(*inputs[0], *inputs[1]);
  }
  throw std::logic_error("unknown node kind");
}

}  // namespace

LayerReference reference_layer(const Layer& layer, const LayerData& data,
                               std::vector<uint32_t> rows, unsigned threads) {
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  std::sort(rows.begin(), rows.end());
  rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
  if (!rows.empty() && rows.back() >= layer.m) {
    throw std::invalid_argument("row " + std::to_string(rows.back()) +
                                " is past M=" + std::to_string(layer.m));
  }
  const uint32_t h = layer.shape.hidden;
  if (data.x.size() != uint64_t{layer.m} * h || data.params.size() != layer.nodes.size()) {
    throw std::invalid_argument("the layer data does not match the layer");
  }
  LayerReference ref;
  ref.rows = std::move(rows);
  ref.tensors.resize(layer.tensors.size());
  // x is exact: it is uploaded as is.
  Reference& x = ref.tensors[0];
  x = zeros(ref.rows.size(), h);
  for (size_t r = 0; r < ref.rows.size(); ++r) {
    for (uint32_t i = 0; i < h; ++i) x.values[r * h + i] = data.x[uint64_t{ref.rows[r]} * h + i];
  }
  for (size_t i = 0; i < layer.nodes.size(); ++i) {
    std::vector<const Reference*> inputs;
    for (size_t t : layer.nodes[i].inputs) inputs.push_back(&ref.tensors[t]);
    ref.tensors[layer.nodes[i].output] =
        reference_node(layer, data, i, inputs, ref.rows.size(), threads);
  }
  return ref;
}

Reference reference_node(const Layer& layer, const LayerData& data, size_t index,
                         const std::vector<const Reference*>& inputs, size_t rows,
                         unsigned threads) {
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  const Node& node = layer.nodes.at(index);
  if (inputs.size() != node.inputs.size()) {
    throw std::invalid_argument(node.name + " takes " + std::to_string(node.inputs.size()) +
                                " inputs");
  }
  for (size_t j = 0; j < inputs.size(); ++j) {
    const uint64_t want = rows * layer.tensors[node.inputs[j]].width;
    if (inputs[j]->values.size() != want || inputs[j]->bounds.size() != want) {
      throw std::invalid_argument(node.name + ": input " + std::to_string(j) + " is not [" +
                                  std::to_string(rows) + ", " +
                                  std::to_string(layer.tensors[node.inputs[j]].width) + "]");
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
    per_row += node.kind == NodeKind::linear ? double(node.problem.n) * node.problem.k
                                             : double(node.problem.n);
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
