// A decoder model's dimensions as a Hugging Face config.json states them, and the linear and
// norm shapes they imply (Llama, Mistral, Qwen2/3 and the like: q/k/v/o, gate/up/down, lm_head).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "kernels/models/model_shapes.h"

namespace vktune::models {

// The config.json fields the shapes depend on. head_dim defaults to hidden / heads and
// num_key_value_heads to num_attention_heads, as in transformers.
struct ModelConfig {
  uint32_t hidden_size = 0, intermediate_size = 0;
  uint32_t num_attention_heads = 0, num_key_value_heads = 0, head_dim = 0;
  uint32_t vocab_size = 0;
  // Not shapes, but what a whole-model figure and RoPE need: decoder layers (0: not stated) and
  // RoPE's base frequency (transformers' default 10000 when absent).
  uint32_t num_hidden_layers = 0;
  double rope_theta = 10000;
  // The lm_head reuses the token embedding; it is still a [vocab, hidden] linear per token.
  bool tie_word_embeddings = false;
  bool qkv_bias = false, o_bias = false, mlp_bias = false;
};

// The linears of one decoder layer plus the lm_head, and the rms_norm width (hidden):
//   q [heads * head_dim, hidden], k and v [kv_heads * head_dim, hidden],
//   o [hidden, heads * head_dim], gate and up [intermediate, hidden], down [hidden, intermediate],
//   lm_head [vocab, hidden].
// Throws std::invalid_argument, prefixed "<name>: " unless `name` is empty, when a dimension is
// 0 or past kMaxModelDimension or the heads do not fit together.
ModelShapes model_shapes(const ModelConfig& config, const std::string& name = "");

// Parses config.json text; `name` (the file) prefixes every error. Reads the fields above
// (from "text_config" when the top level has no hidden_size, as multimodal configs nest it),
// attention_bias / mlp_bias, and model_type "qwen2" (q/k/v carry a bias). Throws
// std::invalid_argument naming the file and the missing or bad field.
ModelConfig parse_model_config(std::string_view json_text, const std::string& name);

}  // namespace vktune::models
