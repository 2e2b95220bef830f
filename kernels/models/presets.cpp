// The presets' configs (Hugging Face meta-llama/Llama-3.2-1B, Meta-Llama-3-8B;
// tests/tuner/models/ holds the files) and the smoke set.
#include "kernels/models/presets.h"

#include <stdexcept>
#include <string>

namespace vktune::models {
namespace {

// A model preset: the shapes its config implies; its layer for `vktune run-layer`.
Preset model(std::string_view name, const ModelConfig& config) {
  return {name, layer_shape(config), model_shapes(config), kModelM, kModelGs};
}

}  // namespace

std::span<const Preset> presets() {
  static const std::vector<Preset> all = {
      model("llama3.2-1b", {.hidden_size = 2048, .intermediate_size = 8192,
                            .num_attention_heads = 32, .num_key_value_heads = 8, .head_dim = 64,
                            .vocab_size = 128256, .num_hidden_layers = 16, .rope_theta = 500000,
                            .tie_word_embeddings = true}),
      model("llama3-8b", {.hidden_size = 4096, .intermediate_size = 14336,
                          .num_attention_heads = 32, .num_key_value_heads = 8, .head_dim = 128,
                          .vocab_size = 128256, .num_hidden_layers = 32, .rope_theta = 500000}),
      // Small and ragged (N not a multiple of any tile): finishes in minutes on lavapipe. Its
      // layer (for `vktune run-layer`) is small and regular instead.
      {"smoke",
       {.hidden = 256, .ffn = 512, .group_size = 32, .heads = 8, .kv_heads = 2, .head_dim = 32,
        .layers = 2},
       {{{200, 256}}, {256}},
       {1, 5},
       {32}},
  };
  return all;
}

const Preset* find_preset(std::string_view name) noexcept {
  for (const Preset& p : presets()) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

std::vector<std::string_view> preset_names() {
  std::vector<std::string_view> names;
  for (const Preset& p : presets()) names.push_back(p.name);
  return names;
}

std::string preset_list() {
  std::string list;
  for (std::string_view name : preset_names()) list += (list.empty() ? "" : ", ") + std::string(name);
  return list;
}

LayerShape layer_shape(const ModelConfig& c) {
  return {.hidden = c.hidden_size, .ffn = c.intermediate_size, .group_size = kModelGs.front(),
          .heads = c.num_attention_heads, .kv_heads = c.num_key_value_heads,
          .head_dim = c.head_dim, .layers = c.num_hidden_layers, .rope_theta = c.rope_theta};
}

LayerShape preset_layer(std::string_view name) {
  if (const Preset* p = find_preset(name)) return p->layer;
  throw std::invalid_argument("\"" + std::string(name) + "\" is not a preset (" + preset_list() + ")");
}

}  // namespace vktune::models
