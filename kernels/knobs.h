// Knob values of a variant and its canonical key "family[knob=value,...]" (docs/variants.md):
// ordered (name, value) pairs whose value is an integer or a bare word.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace vktune::kernels {

using KnobValue = std::variant<int64_t, std::string>;

struct Knob {
  std::string name;
  KnobValue value;
  friend bool operator==(const Knob&, const Knob&) = default;
};

// In the family's declared order; the order is part of the key.
using Knobs = std::vector<Knob>;

class BadKey : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

std::string to_string(const KnobValue& value);

// The value of knob `name`; throws std::out_of_range naming the knob when absent or when it
// has the other type.
int64_t knob_int(const Knobs& knobs, std::string_view name);
// knob_int as the uint32_t that sizes, counts and shader defines take (knob values are small
// and positive).
uint32_t knob_u32(const Knobs& knobs, std::string_view name);
const std::string& knob_word(const Knobs& knobs, std::string_view name);

// "q4gsw_gemv[layout=raw,wg=128,rows=4,load=u32x4,reduce=subgroup]".
std::string key(std::string_view family, const Knobs& knobs);

struct ParsedKey {
  std::string family;
  Knobs knobs;
};
// Inverse of key(): values made only of digits (with an optional leading '-') are integers,
// everything else a word. Throws BadKey naming the problem. Does not check the family's knob
// list (Family::check_knobs does).
ParsedKey parse_key(std::string_view key);

// {"layout": "raw", "wg": 128, ...}; nlohmann objects keep keys sorted, so the order comes
// from the family on the way back (Family::knobs_from_json).
nlohmann::json to_json(const Knobs& knobs);
// The same object as JSON text, keys in the knobs' (the family's declared) order: what the
// database and the runtime hand out as knobs_json.
std::string to_json_text(const Knobs& knobs);

}  // namespace vktune::kernels
