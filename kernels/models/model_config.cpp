// config.json -> ModelConfig -> the model's linear and norm shapes.
#include "kernels/models/model_config.h"

#include <nlohmann/json.hpp>
#include <stdexcept>

namespace vktune::models {
namespace {

class Fields {
 public:
  Fields(const nlohmann::json& object, std::string name) : object_(object), name_(std::move(name)) {}

  bool has(const char* key) const { return object_.contains(key) && !object_[key].is_null(); }

  uint32_t number(const char* key) const {
    if (!has(key)) {
      throw std::invalid_argument(name_ + ": missing \"" + key +
                                  "\" (a decoder model's config.json states it)");
    }
    const auto& value = object_[key];
    if (!value.is_number_unsigned()) {
      throw std::invalid_argument(name_ + ": \"" + key + "\" must be a positive integer, got " +
                                  value.dump());
    }
    return model_dimension(value.get<uint64_t>(), name_ + ": " + key);
  }
  uint32_t number_or(const char* key, uint32_t fallback) const {
    return has(key) ? number(key) : fallback;
  }
  double real_or(const char* key, double fallback) const {
    if (!has(key)) return fallback;
    if (!object_[key].is_number() || object_[key].get<double>() <= 0) {
      throw std::invalid_argument(name_ + ": \"" + key + "\" must be a positive number, got " +
                                  object_[key].dump());
    }
    return object_[key].get<double>();
  }
  bool flag_or(const char* key, bool fallback) const {
    if (!has(key)) return fallback;
    if (!object_[key].is_boolean()) {
      throw std::invalid_argument(name_ + ": \"" + key + "\" must be true or false, got " +
                                  object_[key].dump());
    }
    return object_[key].get<bool>();
  }
  std::string text_or(const char* key) const {
    return has(key) && object_[key].is_string() ? object_[key].get<std::string>() : "";
  }

 private:
  const nlohmann::json& object_;
  std::string name_;
};

}  // namespace

ModelShapes model_shapes(const ModelConfig& c, const std::string& name) {
  const std::string at = name.empty() ? "" : name + ": ";
  const uint32_t hidden = model_dimension(c.hidden_size, at + "hidden_size");
  const uint32_t ffn = model_dimension(c.intermediate_size, at + "intermediate_size");
  const uint32_t heads = model_dimension(c.num_attention_heads, at + "num_attention_heads");
  const uint32_t kv_heads = model_dimension(c.num_key_value_heads, at + "num_key_value_heads");
  const uint32_t vocab = model_dimension(c.vocab_size, at + "vocab_size");
  if (heads % kv_heads != 0) {
    throw std::invalid_argument(at + "num_key_value_heads=" + std::to_string(kv_heads) +
                                " does not divide num_attention_heads=" + std::to_string(heads));
  }
  const uint32_t head_dim = model_dimension(c.head_dim, at + "head_dim");
  const uint32_t q_width = model_dimension(uint64_t{heads} * head_dim, at + "num_attention_heads x head_dim");
  const uint32_t kv_width = model_dimension(uint64_t{kv_heads} * head_dim, at + "num_key_value_heads x head_dim");
  ModelShapes shapes;
  shapes.add_linear({q_width, hidden, c.qkv_bias});
  shapes.add_linear({kv_width, hidden, c.qkv_bias});  // k and v
  shapes.add_linear({hidden, q_width, c.o_bias});
  shapes.add_linear({ffn, hidden, c.mlp_bias});  // gate and up
  shapes.add_linear({hidden, ffn, c.mlp_bias});
  shapes.add_linear({vocab, hidden, false});
  shapes.add_norm(hidden);
  shapes.attention.push_back({heads, kv_heads, head_dim});
  return shapes;
}

ModelConfig parse_model_config(std::string_view json_text, const std::string& name) {
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(json_text);
  } catch (const nlohmann::json::exception& e) {  // parse_error, or out_of_range for 1e999
    throw std::invalid_argument(name + ": not a JSON config (" + e.what() + ")");
  }
  if (!doc.is_object()) throw std::invalid_argument(name + ": expected a JSON object");
  // Multimodal configs (Llava, Gemma 3) keep the language model's fields in text_config.
  if (!doc.contains("hidden_size") && doc.contains("text_config") && doc["text_config"].is_object()) {
    doc = nlohmann::json(doc["text_config"]);
  }
  const Fields f(doc, name);
  ModelConfig c;
  c.hidden_size = f.number("hidden_size");
  c.intermediate_size = f.number("intermediate_size");
  c.num_attention_heads = f.number("num_attention_heads");
  c.num_key_value_heads = f.number_or("num_key_value_heads", c.num_attention_heads);
  if (!f.has("head_dim") && c.hidden_size % c.num_attention_heads != 0) {
    throw std::invalid_argument(name + ": missing \"head_dim\" and hidden_size=" +
                                std::to_string(c.hidden_size) + " is not a multiple of " +
                                "num_attention_heads=" + std::to_string(c.num_attention_heads));
  }
  c.head_dim = f.number_or("head_dim", c.hidden_size / c.num_attention_heads);
  c.vocab_size = f.number("vocab_size");
  c.num_hidden_layers = f.number_or("num_hidden_layers", 0);
  c.rope_theta = f.real_or("rope_theta", c.rope_theta);
  c.tie_word_embeddings = f.flag_or("tie_word_embeddings", false);
  // transformers' Qwen2 attention hard-codes bias on q/k/v (and none on o); Llama-style
  // configs say it with attention_bias (all four) and mlp_bias.
  const bool attention_bias = f.flag_or("attention_bias", false);
  c.qkv_bias = attention_bias || f.text_or("model_type") == "qwen2";
  c.o_bias = attention_bias;
  c.mlp_bias = f.flag_or("mlp_bias", false);
  model_shapes(c, name);  // rejects heads that do not fit together
  return c;
}

}  // namespace vktune::models
