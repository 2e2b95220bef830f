// Presets (kernels/models/presets.h), shapes files and model files, crossed with the M,
// group-size and context-length lists; a shapes file's entry read through its op's EntryKeys.
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

#include "kernels/op.h"
#include "kernels/models/presets.h"
#include "kernels/models/model_file.h"

namespace vktune::tuner {
namespace {

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
  // Validated in each dtype, its op's derived dimensions filled in.
  void add(kernels::Problem p) {
    p = kernels::op_descriptor(p.op).with_defaults(p);
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
  std::vector<kernels::Problem> take() { return std::move(problems_); }

 private:
  std::vector<kernels::DType> dtypes_;
  std::vector<kernels::Problem> problems_;
};

// What a file's entries share unless they say otherwise.
struct FileDefaults {
  std::vector<uint32_t> m, gs;
};

// The values of list key `key`: the run's option where given, else the entry's (`entry` null:
// a model's shape, which names none), else the default: the file's group sizes, or
// kDefaultContexts for a length.
std::vector<uint32_t> list_values(const kernels::EntryKey& key, const nlohmann::json* entry,
                                  const std::string& where, const ShapeOptions& options,
                                  const FileDefaults& file) {
  const bool gs = key.field == kernels::EntryField::group_size;
  const std::vector<uint32_t>& chosen = gs ? options.group_sizes : options.contexts;
  if (!chosen.empty()) return chosen;
  const std::string name(key.name);
  if (entry != nullptr && entry->contains(name)) {
    return number_list((*entry)[name], where + "." + name);
  }
  return gs ? file.gs : kDefaultContexts;
}

void set_field(kernels::Problem& p, kernels::EntryField field, uint32_t value) {
  switch (field) {
    case kernels::EntryField::n: p.n = value; break;
    case kernels::EntryField::k: p.k = value; break;
    case kernels::EntryField::group_size: p.group_size = value; break;
    case kernels::EntryField::bias: p.has_bias = value != 0; break;
    case kernels::EntryField::heads: p.heads = value; break;
    case kernels::EntryField::kv_heads: p.kv_heads = value; break;
  }
}

// `shape` at each M of `ms`, crossed with every value of its op's list keys. An op whose N is a
// length skips a length below M (the M tokens sit among the L positions); a file's entry (not
// null) none of whose M fits any length is an error, not an empty run.
void add_crossed(ProblemList& list, const kernels::Problem& shape, const std::vector<uint32_t>& ms,
                 const nlohmann::json* entry, const std::string& where, const ShapeOptions& options,
                 const FileDefaults& file) {
  const kernels::OpDescriptor& op = kernels::op_descriptor(shape.op);
  std::vector<kernels::Problem> shapes = {shape};
  for (const kernels::EntryKey& key : op.entry_keys) {
    if (!key.list) continue;
    std::vector<kernels::Problem> crossed;
    for (uint32_t value : list_values(key, entry, where, options, file)) {
      for (kernels::Problem p : shapes) {
        set_field(p, key.field, value);
        crossed.push_back(p);
      }
    }
    shapes = std::move(crossed);
  }
  bool fits = false;
  for (uint32_t m : ms) {
    for (kernels::Problem p : shapes) {
      if (op.n_is_length && p.n < m) continue;
      p.m = m;
      list.add(p);
      fits = true;
    }
  }
  if (!fits && entry != nullptr && !ms.empty() && op.n_is_length) {
    uint32_t l_max = 0;
    for (const kernels::Problem& p : shapes) l_max = std::max(l_max, p.n);
    throw std::invalid_argument(
        where + ": M=" + std::to_string(*std::min_element(ms.begin(), ms.end())) +
        " exceeds every context length (the longest L=" + std::to_string(l_max) +
        "): M tokens sit among the L positions");
  }
}

// Refuses a key of `object` outside `known` (a typo such as "group_size" for "gs" would tune
// the default instead of what was meant).
void require_known_keys(const nlohmann::json& object, const std::vector<std::string_view>& known,
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

// A model's problems: at every M, its linears (at every group size), its norms, its attention
// and the RoPE of its queries and keys (at every context length), of the ops `options` asks for
// (the defaults where `options` gives no list).
std::vector<kernels::Problem> from_shapes(const models::ModelShapes& shapes, const ShapeOptions& options,
                                          const std::vector<uint32_t>& default_m,
                                          const std::vector<uint32_t>& default_gs) {
  std::vector<kernels::Problem> layer;
  for (const models::Linear& l : shapes.linears) layer.push_back({kernels::Op("q4gsw"), 0, l.n, l.k, 0, l.bias});
  for (uint32_t width : shapes.norm_widths) layer.push_back({kernels::Op("rms_norm"), 0, width, width, 0});
  for (const models::Attention& a : shapes.attention) {
    kernels::Problem p{kernels::Op("sdpa"), 0, 0, a.head_dim, 0, false};
    p.heads = a.heads;
    p.kv_heads = a.kv_heads;
    layer.push_back(p);
  }
  for (const models::Attention& a : shapes.attention) {
    for (uint32_t heads : {a.heads, a.kv_heads}) {  // of q, then of k
      kernels::Problem p{kernels::Op("rope"), 0, 0, a.head_dim, 0, false};
      p.heads = heads;
      layer.push_back(p);
    }
  }
  const FileDefaults defaults{options.m.empty() ? default_m : options.m, default_gs};
  ProblemList list(options);
  for (uint32_t m : defaults.m) {
    for (const kernels::OpDescriptor* op : kernels::all_ops()) {  // in all_ops() order, whatever --ops says
      if (!wants(options, *op)) continue;
      for (const kernels::Problem& shape : layer) {
        if (shape.op == *op) add_crossed(list, shape, {m}, nullptr, {}, options, defaults);
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
    throw std::invalid_argument("\"" + path + "\" is neither a preset (" + models::preset_list() +
                                ") nor a readable shapes file");
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
const kernels::OpDescriptor& entry_op(const nlohmann::json& p, const std::string& where) {
  if (!p.is_object() || !p.contains("op") || !p["op"].is_string()) {
    throw std::invalid_argument(where + ": expected an object with a string \"op\"");
  }
  const kernels::OpDescriptor* op = kernels::find_op(p["op"].get<std::string>());
  if (op == nullptr) throw std::invalid_argument(where + ".op: unknown op " + p["op"].dump());
  std::vector<std::string_view> known = {"op", "m"};
  for (const kernels::EntryKey& key : op->entry_keys) known.push_back(key.name);
  require_known_keys(p, known, where);
  return *op;
}

// The shape entry `p` of `op` names: its single-valued keys read, its list keys left to
// add_crossed.
kernels::Problem entry_shape(const kernels::OpDescriptor& op, const nlohmann::json& p,
                             const std::string& where) {
  kernels::Problem shape{op, 0, 0, 0, 0, false};
  for (const kernels::EntryKey& key : op.entry_keys) {
    const std::string name(key.name);
    if (!p.contains(name)) {
      if (key.required) throw std::invalid_argument(where + ": missing \"" + name + "\"");
      continue;
    }
    if (key.list) continue;
    if (key.field == kernels::EntryField::bias && !p[name].is_boolean()) {
      throw std::invalid_argument(where + "." + name + ": expected true or false, got " +
                                  p[name].dump());
    }
    set_field(shape, key.field,
              key.field == kernels::EntryField::bias ? p[name].get<bool>()
                                                     : positive(p[name], where + "." + name));
  }
  return shape;
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
    const kernels::OpDescriptor& op = entry_op(p, where);
    const std::string name(op.name);
    if (!wants(options, op)) {
      if (!options.ops_chosen) {
        throw std::invalid_argument(
            where + ": op " + name + ", which the default --ops (" + ops_text(options.ops) +
            ") leaves out; add --ops " + ops_text(options.ops) + "," + name +
            " to tune it, or name the ops to tune with --ops to leave it out");
      }
      left_out.push_back(name);
      continue;
    }
    const auto ms = !options.m.empty() ? options.m
                    : p.contains("m")  ? number_list(p["m"], where + ".m")
                                       : file.m;
    const kernels::Problem shape = entry_shape(op, p, where);
    try {
      add_crossed(list, shape, ms, &p, where, options, file);
    } catch (const std::invalid_argument& e) {  // an invalid problem: say which entry made it
      const std::string what = e.what();
      throw std::invalid_argument(what.starts_with(where) ? what : where + ": " + what);
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

std::vector<kernels::Problem> load_shapes(std::string_view preset_or_file,
                                          const ShapeOptions& options) {
  if (const models::Preset* p = models::find_preset(preset_or_file)) {
    return from_shapes(p->shapes, options, p->default_m, p->default_gs);
  }
  return from_file(std::string(preset_or_file), options);
}

std::vector<kernels::Problem> load_model(const std::string& path, const ShapeOptions& options) {
  const models::ModelShapes shapes = models::load_model_file(path);
  try {
    return from_shapes(shapes, options, models::kModelM, models::kModelGs);
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
