// Presets (the configs of Llama 3.2 1B and Llama 3 8B, and a smoke set small enough for
// lavapipe), shapes files and model files, crossed with the M and group-size lists.
#include "tuner/shape_sets.h"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <istream>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string_view>

#include "tuner/model_config.h"
#include "tuner/model_file.h"

namespace vktune::tuner {
namespace {

struct Preset {
  std::string_view name;
  LayerShape layer;
  ModelShapes shapes;
  std::vector<uint32_t> default_m;
  std::vector<uint32_t> default_gs;
};

// The M and group-size lists of a model preset and of `--model` when none are given.
const std::vector<uint32_t> kModelM = {1, 128}, kModelGs = {32};

// A model preset: the shapes its config implies; its layer for `vktune run-layer`.
Preset model(std::string_view name, const ModelConfig& config) {
  return {name, layer_shape(config), model_shapes(config), kModelM, kModelGs};
}

// The models' config.json values (Hugging Face meta-llama/Llama-3.2-1B, Meta-Llama-3-8B;
// tests/tuner/models/ holds the files).
const std::vector<Preset>& presets() {
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

uint32_t positive(const nlohmann::json& value, const std::string& where) {
  if (!value.is_number_unsigned() || value.get<uint64_t>() == 0 ||
      value.get<uint64_t>() > UINT32_MAX) {
    throw std::invalid_argument(where + ": expected a positive integer, got " + value.dump());
  }
  return value.get<uint32_t>();
}

std::vector<uint32_t> number_list(const nlohmann::json& value, const std::string& where) {
  std::vector<uint32_t> list;
  if (value.is_array() && value.empty()) {
    throw std::invalid_argument(where + ": an empty list; give at least one value or leave the "
                                        "key out for the default");
  }
  if (value.is_array()) {
    for (size_t i = 0; i < value.size(); ++i) {
      list.push_back(positive(value[i], where + "[" + std::to_string(i) + "]"));
    }
  } else {
    list.push_back(positive(value, where));
  }
  return list;
}

// The problems of a run: each shape added once per dtype of the options.
class ProblemList {
 public:
  explicit ProblemList(const ShapeOptions& options) : dtypes_(options.dtypes) {}
  // Validated in each dtype.
  void add(kernels::Problem p) {
    for (kernels::DType dtype : dtypes_) {
      p.dtype = dtype;
      if (const std::string error = kernels::validate(p); !error.empty()) {
        throw std::invalid_argument(kernels::describe(p) + ": " + error);
      }
      if (std::find(problems_.begin(), problems_.end(), p) == problems_.end()) {
        problems_.push_back(p);
      }
    }
  }
  void add_linear(uint32_t m, uint32_t n, uint32_t k, uint32_t gs, bool bias) {
    add({kernels::Op::q4gsw, m, n, k, gs, bias});
  }
  void add_norm(uint32_t m, uint32_t width) { add({kernels::Op::rms_norm, m, width, width, 0}); }
  // The attention of `a` for M tokens at each context length that holds them.
  void add_attention(uint32_t m, const Attention& a, const std::vector<uint32_t>& contexts) {
    for (uint32_t length : contexts) {
      if (length < m) continue;
      kernels::Problem p{kernels::Op::sdpa, m, length, a.head_dim, 0, false};
      p.heads = a.heads;
      p.kv_heads = a.kv_heads;
      add(p);
    }
  }
  // The RoPE of `heads` heads of `head_dim` for M tokens at each context length that holds them.
  void add_rope(uint32_t m, uint32_t heads, uint32_t head_dim, const std::vector<uint32_t>& contexts) {
    for (uint32_t length : contexts) {
      if (length < m) continue;
      kernels::Problem p{kernels::Op::rope, m, length, head_dim, 0, false};
      p.heads = heads;
      add(p);
    }
  }
  std::vector<kernels::Problem> take() { return std::move(problems_); }

 private:
  std::vector<kernels::DType> dtypes_;
  std::vector<kernels::Problem> problems_;
};

// Refuses a key of `object` outside `known` (a typo such as "group_size" for "gs" would tune
// the default instead of what was meant).
void require_known_keys(const nlohmann::json& object, std::initializer_list<std::string_view> known,
                        const std::string& where) {
  for (const auto& [key, value] : object.items()) {
    if (std::find(known.begin(), known.end(), key) != known.end()) continue;
    std::string names;
    for (std::string_view k : known) names += (names.empty() ? "" : ", ") + std::string(k);
    throw std::invalid_argument(where + ": unknown key \"" + key + "\"; the keys here are " + names);
  }
}

// Parses a shapes file, refusing a key given twice in one object (JSON keeps the last, so the
// first value would be lost without a word).
nlohmann::json parse_unique_keys(std::istream& in, const std::string& path) {
  std::vector<std::vector<std::string>> open_objects;
  const nlohmann::json::parser_callback_t check = [&](int, nlohmann::json::parse_event_t event,
                                                      nlohmann::json& parsed) {
    using Event = nlohmann::json::parse_event_t;
    if (event == Event::object_start) open_objects.emplace_back();
    if (event == Event::object_end && !open_objects.empty()) open_objects.pop_back();
    if (event == Event::key && !open_objects.empty()) {
      std::vector<std::string>& keys = open_objects.back();
      const std::string key = parsed.get<std::string>();
      if (std::find(keys.begin(), keys.end(), key) != keys.end()) {
        throw std::invalid_argument(path + ": the key \"" + key +
                                    "\" appears twice in one object; keep one");
      }
      keys.push_back(key);
    }
    return true;
  };
  try {
    return nlohmann::json::parse(in, check);
  } catch (const nlohmann::json::exception& e) {  // parse_error, or out_of_range for 1e999
    throw std::invalid_argument(path + ": " + e.what());
  }
}

// "q4gsw,rms_norm", as --ops takes it.
std::string ops_text(const std::vector<kernels::Op>& ops) {
  std::string text;
  for (kernels::Op op : ops) text += (text.empty() ? "" : ",") + std::string(kernels::op_name(op));
  return text;
}

bool wants(const ShapeOptions& options, kernels::Op op) {
  return std::find(options.ops.begin(), options.ops.end(), op) != options.ops.end();
}

// Every linear at every M and group size, every norm at every M (the defaults where `options`
// gives no list).
std::vector<kernels::Problem> from_shapes(const ModelShapes& shapes, const ShapeOptions& options,
                                          const std::vector<uint32_t>& default_m,
                                          const std::vector<uint32_t>& default_gs) {
  const auto& ms = options.m.empty() ? default_m : options.m;
  const auto& gss = options.group_sizes.empty() ? default_gs : options.group_sizes;
  const auto& contexts = options.contexts.empty() ? kDefaultContexts : options.contexts;
  ProblemList list(options);
  for (uint32_t m : ms) {
    if (wants(options, kernels::Op::q4gsw)) {
      for (const Linear& l : shapes.linears) {
        for (uint32_t gs : gss) list.add_linear(m, l.n, l.k, gs, l.bias);
      }
    }
    if (wants(options, kernels::Op::rms_norm)) {
      for (uint32_t width : shapes.norm_widths) list.add_norm(m, width);
    }
    if (wants(options, kernels::Op::sdpa)) {
      for (const Attention& a : shapes.attention) list.add_attention(m, a, contexts);
    }
    if (wants(options, kernels::Op::rope)) {  // of q, then of k
      for (const Attention& a : shapes.attention) {
        for (uint32_t heads : {a.heads, a.kv_heads}) list.add_rope(m, heads, a.head_dim, contexts);
      }
    }
  }
  return list.take();
}

// A shapes file's document, checked at its top level: an object whose "problems" is a non-empty
// array, with "m" and "gs" beside it at most.
nlohmann::json read_shapes_document(const std::string& path) {
  if (std::error_code ec; std::filesystem::is_directory(path, ec)) {
    throw std::invalid_argument(path + " is a directory; give a shapes file or a preset");
  }
  std::ifstream in(path);
  if (!in) {
    throw std::invalid_argument("\"" + path + "\" is neither a preset (llama3.2-1b, llama3-8b, " +
                                "smoke) nor a readable shapes file");
  }
  nlohmann::json doc = parse_unique_keys(in, path);
  if (!doc.is_object() || !doc.contains("problems") || !doc["problems"].is_array()) {
    throw std::invalid_argument(path + ": expected an object with a \"problems\" array");
  }
  require_known_keys(doc, {"problems", "m", "gs"}, path);
  if (doc["problems"].empty()) {
    throw std::invalid_argument(path + ": \"problems\" is empty; a run needs at least one");
  }
  return doc;
}

// The op of entry `p` at `where`, its keys checked against what that op takes.
kernels::Op entry_op(const nlohmann::json& p, const std::string& where) {
  if (!p.is_object() || !p.contains("op") || !p["op"].is_string()) {
    throw std::invalid_argument(where + ": expected an object with a string \"op\"");
  }
  const auto op = kernels::parse_op(p["op"].get<std::string>());
  if (!op) throw std::invalid_argument(where + ".op: unknown op " + p["op"].dump());
  switch (*op) {
    case kernels::Op::q4gsw: require_known_keys(p, {"op", "m", "n", "k", "gs", "bias"}, where); break;
    case kernels::Op::rms_norm: require_known_keys(p, {"op", "m", "n", "k"}, where); break;
    case kernels::Op::sdpa:
      require_known_keys(p, {"op", "m", "heads", "kv_heads", "head_dim", "context"}, where);
      break;
    case kernels::Op::rope:
      require_known_keys(p, {"op", "m", "heads", "head_dim", "context"}, where);
      break;
  }
  return *op;
}

// What a file's entries share unless they say otherwise.
struct FileDefaults {
  std::vector<uint32_t> m, gs;
};

// The problems of an attention (sdpa) or RoPE entry: for each M, at each context length that
// holds its tokens. An entry none of whose M fits any of its contexts is an error, not an empty
// run.
void add_context_entry(ProblemList& list, kernels::Op op, const nlohmann::json& p,
                       const std::string& where, const std::vector<uint32_t>& ms,
                       const ShapeOptions& options) {
  const bool rope = op == kernels::Op::rope;  // one tensor's heads: no kv_heads
  for (const char* key : {"heads", "kv_heads", "head_dim"}) {
    if (rope && std::string_view(key) == "kv_heads") continue;
    if (!p.contains(key)) throw std::invalid_argument(where + ": missing \"" + key + "\"");
  }
  const uint32_t heads = positive(p["heads"], where + ".heads");
  const uint32_t head_dim = positive(p["head_dim"], where + ".head_dim");
  const auto contexts = !options.contexts.empty() ? options.contexts
                        : p.contains("context")  ? number_list(p["context"], where + ".context")
                                                 : kDefaultContexts;
  const uint32_t m_min = ms.empty() ? 0 : *std::min_element(ms.begin(), ms.end());
  const uint32_t l_max = contexts.empty() ? 0 : *std::max_element(contexts.begin(), contexts.end());
  if (!ms.empty() && m_min > l_max) {
    throw std::invalid_argument(where + ": M=" + std::to_string(m_min) +
                                " exceeds every context length (the longest L=" +
                                std::to_string(l_max) + "): M tokens sit among the L positions");
  }
  for (uint32_t m : ms) {
    if (rope) {
      list.add_rope(m, heads, head_dim, contexts);
    } else {
      list.add_attention(m, {heads, positive(p["kv_heads"], where + ".kv_heads"), head_dim},
                         contexts);
    }
  }
}

// The problems of a linear (q4gsw) or norm (rms_norm) entry.
void add_rows_entry(ProblemList& list, kernels::Op op, const nlohmann::json& p,
                    const std::string& where, const std::vector<uint32_t>& ms,
                    const ShapeOptions& options, const FileDefaults& file) {
  if (!p.contains("n")) throw std::invalid_argument(where + ": missing \"n\"");
  const uint32_t n = positive(p["n"], where + ".n");
  // A norm's K is its width: given, it must say so, not be dropped.
  if (op == kernels::Op::rms_norm && p.contains("k") && positive(p["k"], where + ".k") != n) {
    throw std::invalid_argument(where + ": rms_norm's k is its width n (" + std::to_string(n) +
                                "); give k = n or leave k out");
  }
  for (uint32_t m : ms) {
    if (op == kernels::Op::rms_norm) {
      list.add_norm(m, n);
      continue;
    }
    if (!p.contains("k")) throw std::invalid_argument(where + ": missing \"k\"");
    const uint32_t k = positive(p["k"], where + ".k");
    if (p.contains("bias") && !p["bias"].is_boolean()) {
      throw std::invalid_argument(where + ".bias: expected true or false, got " + p["bias"].dump());
    }
    const bool bias = p.value("bias", false);
    const auto gss = !options.group_sizes.empty() ? options.group_sizes
                     : p.contains("gs")           ? number_list(p["gs"], where + ".gs")
                                                  : file.gs;
    for (uint32_t gs : gss) list.add_linear(m, n, k, gs, bias);
  }
}

std::vector<kernels::Problem> from_file(const std::string& path, const ShapeOptions& options) {
  const nlohmann::json doc = read_shapes_document(path);
  std::vector<std::string> left_out;  // ops of entries --ops leaves out
  const FileDefaults file{doc.contains("m") ? number_list(doc["m"], path + ": m")
                                            : std::vector<uint32_t>{1},
                          doc.contains("gs") ? number_list(doc["gs"], path + ": gs")
                                             : std::vector<uint32_t>{32}};
  ProblemList list(options);
  const auto& problems = doc["problems"];
  for (size_t i = 0; i < problems.size(); ++i) {
    const std::string where = path + ": problems[" + std::to_string(i) + "]";
    const auto& p = problems[i];
    const kernels::Op op = entry_op(p, where);
    if (!wants(options, op)) {
      if (!options.ops_chosen) {
        throw std::invalid_argument(
            where + ": op " + kernels::op_name(op) + ", which the default --ops (" +
            ops_text(options.ops) + ") leaves out; add --ops " + ops_text(options.ops) + "," +
            kernels::op_name(op) + " to tune it, or name the ops to tune with --ops to leave it out");
      }
      left_out.push_back(kernels::op_name(op));
      continue;
    }
    const auto ms = !options.m.empty() ? options.m
                    : p.contains("m")  ? number_list(p["m"], where + ".m")
                                       : file.m;
    if (op == kernels::Op::sdpa || op == kernels::Op::rope) {
      add_context_entry(list, op, p, where, ms, options);
    } else {
      add_rows_entry(list, op, p, where, ms, options, file);
    }
  }
  std::vector<kernels::Problem> problems_out = list.take();
  if (problems_out.empty() && !left_out.empty()) {
    throw std::invalid_argument(path + ": every entry is of an op --ops leaves out (" +
                                left_out.front() + "); add it to --ops, e.g. --ops " +
                                left_out.front());
  }
  return problems_out;
}

}  // namespace

std::vector<std::string_view> preset_names() {
  std::vector<std::string_view> names;
  for (const Preset& p : presets()) names.push_back(p.name);
  return names;
}

LayerShape layer_shape(const ModelConfig& c) {
  return {.hidden = c.hidden_size, .ffn = c.intermediate_size, .group_size = kModelGs.front(),
          .heads = c.num_attention_heads, .kv_heads = c.num_key_value_heads,
          .head_dim = c.head_dim, .layers = c.num_hidden_layers, .rope_theta = c.rope_theta};
}

LayerShape preset_layer(std::string_view name) {
  for (const Preset& p : presets()) {
    if (p.name == name) return p.layer;
  }
  throw std::invalid_argument("\"" + std::string(name) +
                              "\" is not a preset (llama3.2-1b, llama3-8b, smoke)");
}

std::vector<kernels::Problem> load_shapes(std::string_view preset_or_file,
                                          const ShapeOptions& options) {
  for (const Preset& p : presets()) {
    if (p.name == preset_or_file) return from_shapes(p.shapes, options, p.default_m, p.default_gs);
  }
  return from_file(std::string(preset_or_file), options);
}

std::vector<kernels::Problem> load_model(const std::string& path, const ShapeOptions& options) {
  const ModelShapes shapes = load_model_file(path);
  try {
    return from_shapes(shapes, options, kModelM, kModelGs);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(path + ": " + e.what());
  }
}

namespace {

// The comma-separated items of `text` ("" -> none).
std::vector<std::string_view> items(std::string_view text) {
  std::vector<std::string_view> out;
  while (!text.empty()) {
    const size_t comma = text.find(',');
    out.push_back(text.substr(0, comma));
    text = comma == std::string_view::npos ? std::string_view() : text.substr(comma + 1);
  }
  return out;
}

}  // namespace

std::vector<uint32_t> parse_list(std::string_view text) {
  std::vector<uint32_t> values;
  for (std::string_view item : items(text)) {
    uint32_t value = 0;
    const auto [end, error] = std::from_chars(item.data(), item.data() + item.size(), value);
    if (error != std::errc() || end != item.data() + item.size() || value == 0) {
      throw std::invalid_argument("\"" + std::string(item) +
                                  "\" is not a positive integer (expected a list like 1,4,16)");
    }
    values.push_back(value);
  }
  if (values.empty()) throw std::invalid_argument("an empty list was given");
  return values;
}

std::vector<kernels::DType> parse_dtypes(std::string_view text) {
  std::vector<kernels::DType> dtypes;
  for (std::string_view item : items(text)) {
    const auto dtype = kernels::parse_dtype(item);
    if (!dtype) {
      throw std::invalid_argument("unknown dtype \"" + std::string(item) + "\" (f32, f16)");
    }
    dtypes.push_back(*dtype);
  }
  if (dtypes.empty()) throw std::invalid_argument("an empty dtype list was given");
  return dtypes;
}

}  // namespace vktune::tuner
