// The weight-bound shapes a decoder model runs, whatever file they came from (a Hugging Face
// config.json, a GGUF header, a built-in preset): its linears as [N, K] and its norm widths.
#pragma once

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace vktune::models {

// Far above any real model (vocabularies reach ~256k, widths ~64k) and small enough that
// products of two stay exact and a hostile file cannot ask for absurd problems.
inline constexpr uint64_t kMaxModelDimension = uint64_t{1} << 24;

// `value` as a model dimension; throws std::invalid_argument "<what>=<value> is out of range"
// unless 1 <= value <= kMaxModelDimension.
inline uint32_t model_dimension(uint64_t value, const std::string& what) {
  if (value == 0 || value > kMaxModelDimension) {
    throw std::invalid_argument(what + "=" + std::to_string(value) + " is out of range (1.." +
                                std::to_string(kMaxModelDimension) + ")");
  }
  return static_cast<uint32_t>(value);
}

// One linear layer: out[m, n] = x[m, k] W[n, k]^T (+ bias[n]).
struct Linear {
  uint32_t n = 0, k = 0;
  bool bias = false;
  friend bool operator==(const Linear&, const Linear&) = default;
};

// A model's attention heads: what its sdpa problems are, at every context length.
struct Attention {
  uint32_t heads = 0, kv_heads = 0, head_dim = 0;
  friend bool operator==(const Attention&, const Attention&) = default;
};

// Each distinct shape once, in the order first met (q, k, v, o, gate, up, down, lm_head of a
// layer), so the problems of a run come out in a stable, readable order.
struct ModelShapes {
  std::vector<Linear> linears;
  std::vector<uint32_t> norm_widths;
  std::vector<Attention> attention;  // empty where the source does not say (GGUF headers)

  void add_linear(const Linear& linear) {
    if (std::find(linears.begin(), linears.end(), linear) == linears.end()) {
      linears.push_back(linear);
    }
  }
  void add_norm(uint32_t width) {
    if (std::find(norm_widths.begin(), norm_widths.end(), width) == norm_widths.end()) {
      norm_widths.push_back(width);
    }
  }
};

}  // namespace vktune::models
