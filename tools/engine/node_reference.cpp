// The per-node fp64 math of the layer reference; linear nodes split over threads by output
// feature.
#include "tools/engine/node_reference.h"

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
      kernels::dequantize_row(p, d, n, w);
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

// Rotate-half RoPE of each row's heads at the row's position, angles from the table
// [L, D/2] (cos, sin): y_i = a cos - b sin, y_{i+D/2} = a sin + b cos for a = x_i, b = x_{i+D/2}.
Reference rope(const Layer& layer, const Reference& x, const Reference& table, uint32_t width,
               std::span<const uint32_t> rows) {
  const uint32_t d = layer.shape.head_dim, half = d / 2;
  Reference y = zeros(rows.size(), width);
  for (size_t r = 0; r < rows.size(); ++r) {
    const uint64_t angles = uint64_t{layer.first_position() + rows[r]} * d;
    for (uint32_t head = 0; head < width / d; ++head) {
      for (uint32_t i = 0; i < half; ++i) {
        const uint64_t lo = r * width + head * d + i, hi = lo + half;
        const double c = table.values[angles + 2 * i], s = table.values[angles + 2 * i + 1];
        const double a = x.values[lo], b = x.values[hi];
        const double carried = x.bounds[lo] * std::abs(c) + x.bounds[hi] * std::abs(s);
        const double carried_hi = x.bounds[lo] * std::abs(s) + x.bounds[hi] * std::abs(c);
        y.values[lo] = a * c - b * s;
        y.values[hi] = a * s + b * c;
        y.bounds[lo] = std::abs(a * c) + std::abs(b * s) + carried + 1e-30;
        y.bounds[hi] = std::abs(a * s) + std::abs(b * c) + carried_hi + 1e-30;
      }
    }
  }
  return y;
}

// A copy rounds at most once, to the output's type: the bound is the value's magnitude.
Reference copy(const Reference& x) {
  Reference y = x;
  for (size_t i = 0; i < y.values.size(); ++i) y.bounds[i] += std::abs(y.values[i]) + 1e-30;
  return y;
}

// Causal attention of each row (token t at position L - M + t attends 0 .. L - M + t). On exact
// inputs the bound is sdpa_reference's, A[d] (1 + 2 max_j S_j) with A[d] = sum_j p_j |v_j[d]|
// and S_j = scale sum_i |q_i k_j[i]|; carried errors add the score error they cause, E_j = scale
// sum_i (bq_i |k_j[i]| + |q_i| bk_j[i]), through the softmax (at most 2 max_j E_j A[d], as
// there) and the values' own, sum_j p_j bv_j[d].
// An f16 layer stores q and the caches in fp16 and needs nothing more here: rounding the new
// positions to fp16 is the output rounding of the nodes writing them (RoPE, the append), at most
// 2^-11 of a value their bounds already hold, so within their f16 tolerance, and it arrives here
// as carried error; the earlier positions are drawn as fp16 values, exact on both sides; and
// attention's own fp16 store is sdpa_reference's case, at most 2^-11 |out[d]| <= 2^-11 A[d],
// within the f16 family's tolerance.
Reference attention(const Layer& layer, const Reference& q, const Reference& k,
                    const Reference& v, std::span<const uint32_t> rows) {
  const models::LayerShape& shape = layer.shape;
  const uint32_t d = shape.head_dim, group = shape.heads / shape.kv_heads;
  const uint32_t q_width = shape.q_width(), kv_width = shape.kv_width();
  const double scale = 1.0 / std::sqrt(double(d));
  Reference y = zeros(rows.size(), q_width);
  std::vector<double> p(layer.context);
  for (size_t r = 0; r < rows.size(); ++r) {
    const uint32_t attended = layer.first_position() + rows[r] + 1;
    for (uint32_t h = 0; h < shape.heads; ++h) {
      const uint64_t qi = r * q_width + uint64_t{h} * d;
      const uint64_t kv_offset = uint64_t{h / group} * d;
      double max_s = -INFINITY, max_magnitude = 0, max_carried = 0;
      for (uint32_t j = 0; j < attended; ++j) {
        const uint64_t kj = uint64_t{j} * kv_width + kv_offset;
        double dot = 0, magnitude = 0, carried = 0;
        for (uint32_t i = 0; i < d; ++i) {
          dot += q.values[qi + i] * k.values[kj + i];
          magnitude += std::abs(q.values[qi + i] * k.values[kj + i]);
          carried += q.bounds[qi + i] * std::abs(k.values[kj + i]) +
                     std::abs(q.values[qi + i]) * k.bounds[kj + i];
        }
        p[j] = dot * scale;
        max_s = std::max(max_s, p[j]);
        max_magnitude = std::max(max_magnitude, magnitude * scale);
        max_carried = std::max(max_carried, carried * scale);
      }
      double sum = 0;
      for (uint32_t j = 0; j < attended; ++j) sum += (p[j] = std::exp(p[j] - max_s));
      std::vector<double> magnitude(d, 0.0), carried(d, 0.0);
      for (uint32_t j = 0; j < attended; ++j) {
        const uint64_t vj = uint64_t{j} * kv_width + kv_offset;
        const double pj = p[j] / sum;
        for (uint32_t i = 0; i < d; ++i) {
          y.values[qi + i] += pj * v.values[vj + i];
          magnitude[i] += pj * std::abs(v.values[vj + i]);
          carried[i] += pj * v.bounds[vj + i];
        }
      }
      for (uint32_t i = 0; i < d; ++i) {
        y.bounds[qi + i] =
            magnitude[i] * (1 + 2 * max_magnitude + 2 * max_carried) + carried[i] + 1e-30;
      }
    }
  }
  return y;
}

}  // namespace

Reference compute_node(const Layer& layer, const LayerData& data, size_t index,
                       const std::vector<const Reference*>& inputs,
                       std::span<const uint32_t> rows, unsigned threads) {
  const Node& node = layer.nodes[index];
  const size_t count = rows.size();
  switch (node.kind) {
    case NodeKind::rms_norm:
      return rms_norm(node.problem, *inputs[0], data.params.at(index).norm_weight, count);
    case NodeKind::linear:
      return linear(node.problem, *inputs[0], data.params.at(index), count, threads);
    case NodeKind::attention:
      return attention(layer, *inputs[0], *inputs[1], *inputs[2], rows);
    case NodeKind::add:
      return add(*inputs[0], *inputs[1]);
    case NodeKind::silu_mul:
      return silu_mul(*inputs[0], *inputs[1]);
    case NodeKind::rope:
      return rope(layer, *inputs[0], *inputs[1], layer.tensors[node.output].width, rows);
    case NodeKind::copy:
      return copy(*inputs[0]);
  }
  throw std::logic_error("unknown node kind");
}

}  // namespace vktune::engine
