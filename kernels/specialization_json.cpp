// Specialisation constants to and from their stored JSON.
#include "kernels/specialization_json.h"

#include <cstdint>
#include <limits>
#include <stdexcept>
#include <nlohmann/json.hpp>

namespace vktune::kernels {
namespace {

uint32_t u32(const nlohmann::json& v, const std::string& label) {
  if (!v.is_number_integer() || v.get<int64_t>() < 0 ||
      v.get<int64_t>() > std::numeric_limits<uint32_t>::max()) {
    throw std::invalid_argument(label + " is " + v.dump() + ", not an unsigned 32-bit integer");
  }
  return static_cast<uint32_t>(v.get<int64_t>());
}

}  // namespace

nlohmann::json to_json(const Specialization& s) {
  nlohmann::json j = nlohmann::json::array();
  for (const SpecConstant& c : s) j.push_back({c.constant_id, c.value});
  return j;
}

Specialization specialization_from_json(const nlohmann::json& j, const std::string& label) {
  if (!j.is_array()) throw std::invalid_argument(label + " is not a JSON array");
  Specialization s;
  for (size_t i = 0; i < j.size(); ++i) {
    const std::string at = label + "[" + std::to_string(i) + "]";
    if (!j[i].is_array() || j[i].size() != 2) {
      throw std::invalid_argument(at + " is " + j[i].dump() + ", not a [constant_id, value] pair");
    }
    const SpecConstant c{u32(j[i][0], at + ".constant_id"), u32(j[i][1], at + ".value")};
    if (!s.empty() && c.constant_id <= s.back().constant_id) {
      throw std::invalid_argument(at + ": constant_id " + std::to_string(c.constant_id) +
                                  " is not above the previous pair's " +
                                  std::to_string(s.back().constant_id));
    }
    s.push_back(c);
  }
  return s;
}

}  // namespace vktune::kernels
