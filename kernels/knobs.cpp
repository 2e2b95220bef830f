// Canonical keys and JSON for knob values.
#include "kernels/knobs.h"

#include <nlohmann/json.hpp>

namespace vktune::kernels {
namespace {

bool is_word_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

bool is_integer(std::string_view s) {
  if (s.starts_with('-')) s.remove_prefix(1);
  if (s.empty() || s.size() > 18) return false;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

const Knob& find(const Knobs& knobs, std::string_view name) {
  for (const Knob& k : knobs) {
    if (k.name == name) return k;
  }
  throw std::out_of_range("no knob named " + std::string(name));
}

}  // namespace

std::string to_string(const KnobValue& value) {
  if (const auto* i = std::get_if<int64_t>(&value)) return std::to_string(*i);
  return std::get<std::string>(value);
}

int64_t knob_int(const Knobs& knobs, std::string_view name) {
  const Knob& k = find(knobs, name);
  if (const auto* i = std::get_if<int64_t>(&k.value)) return *i;
  throw std::out_of_range("knob " + std::string(name) + " is a word, not an integer");
}

uint32_t knob_u32(const Knobs& knobs, std::string_view name) {
  return static_cast<uint32_t>(knob_int(knobs, name));
}

const std::string& knob_word(const Knobs& knobs, std::string_view name) {
  const Knob& k = find(knobs, name);
  if (const auto* s = std::get_if<std::string>(&k.value)) return *s;
  throw std::out_of_range("knob " + std::string(name) + " is an integer, not a word");
}

std::string key(std::string_view family, const Knobs& knobs) {
  std::string s(family);
  s += '[';
  for (size_t i = 0; i < knobs.size(); ++i) {
    if (i) s += ',';
    s += knobs[i].name + '=' + to_string(knobs[i].value);
  }
  s += ']';
  return s;
}

ParsedKey parse_key(std::string_view text) {
  const std::string quoted = "key \"" + std::string(text) + "\"";
  const size_t open = text.find('[');
  if (open == std::string_view::npos || !text.ends_with(']')) {
    throw BadKey(quoted + " is not of the form family[knob=value,...]");
  }
  ParsedKey parsed;
  parsed.family = std::string(text.substr(0, open));
  if (parsed.family.empty()) throw BadKey(quoted + " has no family name");
  for (char c : parsed.family) {
    if (!is_word_char(c)) throw BadKey(quoted + ": bad character in the family name");
  }
  std::string_view body = text.substr(open + 1, text.size() - open - 2);
  while (!body.empty()) {
    const size_t comma = body.find(',');
    std::string_view item = body.substr(0, comma);
    body = comma == std::string_view::npos ? std::string_view{} : body.substr(comma + 1);
    const size_t eq = item.find('=');
    if (eq == std::string_view::npos || eq == 0 || eq + 1 == item.size()) {
      throw BadKey(quoted + ": \"" + std::string(item) + "\" is not knob=value");
    }
    std::string name(item.substr(0, eq));
    std::string_view value = item.substr(eq + 1);
    for (char c : name) {
      if (!is_word_char(c)) throw BadKey(quoted + ": bad character in knob " + name);
    }
    for (char c : value) {
      if (!is_word_char(c) && c != '-') throw BadKey(quoted + ": bad character in value of " + name);
    }
    for (const Knob& k : parsed.knobs) {
      if (k.name == name) throw BadKey(quoted + " names knob " + name + " twice");
    }
    if (is_integer(value)) {
      parsed.knobs.push_back({std::move(name), KnobValue(std::stoll(std::string(value)))});
    } else {
      parsed.knobs.push_back({std::move(name), KnobValue(std::string(value))});
    }
    if (comma != std::string_view::npos && body.empty()) throw BadKey(quoted + " ends with a comma");
  }
  return parsed;
}

nlohmann::json to_json(const Knobs& knobs) {
  nlohmann::json j = nlohmann::json::object();
  for (const Knob& k : knobs) {
    if (const auto* i = std::get_if<int64_t>(&k.value)) {
      j[k.name] = *i;
    } else {
      j[k.name] = std::get<std::string>(k.value);
    }
  }
  return j;
}

std::string to_json_text(const Knobs& knobs) {
  // Written by hand so the knobs keep their order (nlohmann sorts keys).
  std::string json = "{";
  for (size_t i = 0; i < knobs.size(); ++i) {
    if (i > 0) json += ",";
    json += nlohmann::json(knobs[i].name).dump() + ":";
    json += std::holds_alternative<int64_t>(knobs[i].value)
                ? std::to_string(std::get<int64_t>(knobs[i].value))
                : nlohmann::json(std::get<std::string>(knobs[i].value)).dump();
  }
  return json + "}";
}

}  // namespace vktune::kernels
