// specialization_text and its reader, over nlohmann::json.
#include "db/specialization_text.h"

#include <nlohmann/json.hpp>

#include "db/json_reader.h"

namespace vktune::db {
namespace {

std::string not_u32(const nlohmann::json& v) {
  return std::string("expected an unsigned 32-bit integer, got ") +
         (v.is_number() ? v.dump() : v.type_name());
}

}  // namespace

std::string specialization_text(std::span<const SpecPair> pairs) {
  nlohmann::json j = nlohmann::json::array();
  for (const SpecPair& p : pairs) j.push_back({p.constant_id, p.value});
  return j.dump();
}

std::optional<std::vector<SpecPair>> parse_specialization_text(const std::string& text,
                                                                SpecTextError* error) {
  const auto fail = [error](std::string where, std::string why) {
    *error = {std::move(where), std::move(why)};
    return std::nullopt;
  };
  const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (!j.is_array()) return fail("", "is not a JSON array of [constant_id, value] pairs");
  std::vector<SpecPair> pairs;
  for (size_t i = 0; i < j.size(); ++i) {
    const std::string at = json_read::at("", i);
    if (!j[i].is_array() || j[i].size() != 2) {
      return fail(at, "expected a [constant_id, value] pair, got " + j[i].dump());
    }
    const std::optional<uint32_t> id = json_read::as_u32(j[i][0]),
                                  value = json_read::as_u32(j[i][1]);
    if (!id) return fail(at + ".constant_id", not_u32(j[i][0]));
    if (!value) return fail(at + ".value", not_u32(j[i][1]));
    const SpecPair pair{*id, *value};
    if (!pairs.empty() && pair.constant_id <= pairs.back().constant_id) {
      return fail(at, "constant_id " + std::to_string(pair.constant_id) +
                          " is not above the previous pair's " +
                          std::to_string(pairs.back().constant_id) + "; ids ascend, each once");
    }
    pairs.push_back(pair);
  }
  return pairs;
}

}  // namespace vktune::db
