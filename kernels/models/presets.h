// The built-in models (Llama 3.2 1B, Llama 3 8B, and a smoke set small enough for lavapipe) and
// one decoder layer of a model, what `vktune tune` crosses with its M and group-size lists and
// what `vktune run-layer` builds. Below the tuner and the engine, so both read them.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "kernels/models/model_config.h"
#include "kernels/models/model_shapes.h"

namespace vktune::models {

// One decoder layer of a model, what `vktune run-layer` builds: hidden size, FFN
// (intermediate) width, the preset's default group size, the attention heads (query heads, KV
// heads, head dim), RoPE's base frequency and the model's layer count (0: not known), which
// turns one layer's time into the model's. The projections are q [heads x head_dim, hidden],
// k and v [kv_width, hidden], o [hidden, heads x head_dim], gate and up [ffn, hidden], down
// [hidden, ffn] (as [N, K]).
struct LayerShape {
  uint32_t hidden = 0, ffn = 0, group_size = 0;
  uint32_t heads = 0, kv_heads = 0, head_dim = 0;
  uint32_t layers = 0;
  double rope_theta = 10000;

  uint32_t q_width() const noexcept { return heads * head_dim; }
  uint32_t kv_width() const noexcept { return kv_heads * head_dim; }
};

// The M and group-size lists a model is tuned at when a run gives none.
inline const std::vector<uint32_t> kModelM = {1, 128}, kModelGs = {32};

struct Preset {
  std::string_view name;
  LayerShape layer;
  ModelShapes shapes;
  std::vector<uint32_t> default_m;
  std::vector<uint32_t> default_gs;
};

// Every preset: llama3.2-1b, llama3-8b, smoke.
std::span<const Preset> presets();
// The preset named `name`, or nullptr.
const Preset* find_preset(std::string_view name) noexcept;
// "llama3.2-1b", "llama3-8b", "smoke".
std::vector<std::string_view> preset_names();
// "llama3.2-1b, llama3-8b, smoke", for messages.
std::string preset_list();

// The layer of preset `name` (smoke: a small layer for CI, hidden 256, 8 heads of 32 over 2 KV
// heads (kv 64), ffn 512; its tuning shapes stay the ragged ones). Throws
// std::invalid_argument for an unknown preset.
LayerShape preset_layer(std::string_view name);
// The layer of a model config (the presets' one source), at the presets' group size.
LayerShape layer_shape(const ModelConfig& config);

}  // namespace vktune::models
