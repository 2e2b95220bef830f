// GGUF header -> model shapes, by tensor names (llama.cpp's naming) or by metadata.
#include "kernels/models/gguf_model.h"

#include <array>
#include <charconv>
#include <set>
#include <stdexcept>
#include <string_view>

namespace vktune::models {
namespace {

// The linears of one block, in the order a config's shapes come (model_config.h).
constexpr std::array<const char*, 7> kBlockLinears = {"attn_q",   "attn_k", "attn_v", "attn_output",
                                                      "ffn_gate", "ffn_up", "ffn_down"};

// A weight stored with dims {K, N} as the linear [N, K].
Linear linear(const GgufTensor& t, bool bias, const std::string& name) {
  if (t.dims.size() != 2) {
    throw std::invalid_argument(name + ": tensor " + t.name + " has " + std::to_string(t.dims.size()) +
                                " dimensions; a linear weight has 2");
  }
  return {model_dimension(t.dims[1], name + ": " + t.name + " rows"),
          model_dimension(t.dims[0], name + ": " + t.name + " columns"), bias};
}

// The block numbers i of the tensors named "blk.<i>.*", in order.
std::set<uint64_t> blocks(const GgufHeader& h) {
  std::set<uint64_t> numbers;
  for (const GgufTensor& t : h.tensors) {
    if (!t.name.starts_with("blk.")) continue;
    uint64_t i = 0;
    const char* first = t.name.data() + 4;
    const auto [end, error] = std::from_chars(first, t.name.data() + t.name.size(), i);
    if (error == std::errc() && end != first && *end == '.') numbers.insert(i);
  }
  return numbers;
}

ModelShapes from_tensors(const GgufHeader& h, const std::string& name) {
  ModelShapes shapes;
  const std::set<uint64_t> numbers = blocks(h);
  for (uint64_t block : numbers) {
    const std::string prefix = "blk." + std::to_string(block) + ".";
    for (const char* role : kBlockLinears) {
      const GgufTensor* weight = h.tensor(prefix + role + ".weight");
      if (weight == nullptr) {
        throw std::invalid_argument(name + ": tensor " + prefix + role +
                                    ".weight is missing (expected a Llama-style block)");
      }
      const Linear l = linear(*weight, h.tensor(prefix + role + ".bias") != nullptr, name);
      if (std::string_view(role) == "attn_q") shapes.add_norm(l.k);  // the hidden size
      shapes.add_linear(l);
    }
  }
  if (numbers.empty()) throw std::invalid_argument(name + ": no tensor blk.<i>.* (no decoder blocks)");
  const GgufTensor* head = h.tensor("output.weight");
  if (head == nullptr) head = h.tensor("token_embd.weight");  // tied to the embedding
  if (head == nullptr) {
    throw std::invalid_argument(name + ": neither output.weight nor token_embd.weight (the lm_head)");
  }
  shapes.add_linear(linear(*head, false, name));
  return shapes;
}

}  // namespace

ModelConfig gguf_metadata_config(const GgufHeader& h, const std::string& name) {
  const std::string arch = h.text("general.architecture");
  if (arch.empty()) {
    throw std::invalid_argument(name + ": no tensors and no string general.architecture to read "
                                "the model's metadata by");
  }
  const auto required = [&](const std::string& key) {
    const auto value = h.integer(arch + "." + key);
    if (!value) throw std::invalid_argument(name + ": missing integer metadata " + arch + "." + key);
    return model_dimension(*value, name + ": " + arch + "." + key);
  };
  const auto optional = [&](const std::string& key, uint32_t fallback) {
    return h.integer(arch + "." + key) ? required(key) : fallback;
  };
  ModelConfig c;
  c.hidden_size = required("embedding_length");
  c.intermediate_size = required("feed_forward_length");
  c.num_attention_heads = required("attention.head_count");
  c.num_key_value_heads = optional("attention.head_count_kv", c.num_attention_heads);
  c.head_dim = optional("attention.key_length", c.hidden_size / c.num_attention_heads);
  if (h.integer(arch + ".vocab_size")) {
    c.vocab_size = required("vocab_size");
  } else {
    const auto it = h.metadata.find("tokenizer.ggml.tokens");
    const auto* tokens = it == h.metadata.end() ? nullptr : std::get_if<GgufArray>(&it->second);
    if (tokens == nullptr) {
      throw std::invalid_argument(name + ": missing " + arch +
                                  ".vocab_size and tokenizer.ggml.tokens (the vocabulary size)");
    }
    c.vocab_size = model_dimension(tokens->length, name + ": tokenizer.ggml.tokens length");
  }
  c.qkv_bias = arch == "qwen2";  // as transformers' Qwen2 (model_config.h)
  model_shapes(c, name);  // rejects heads that do not fit together
  return c;
}

ModelShapes gguf_model_shapes(const GgufHeader& h, const std::string& name) {
  return h.tensors.empty() ? model_shapes(gguf_metadata_config(h, name), name) : from_tensors(h, name);
}

}  // namespace vktune::models
