// Constraints to and from their stored JSON.
#include "kernels/constraints_json.h"

#include <cstdint>
#include <limits>
#include <stdexcept>
#include <nlohmann/json.hpp>

namespace vktune::kernels {

nlohmann::json to_json(const Constraints& c) {
  nlohmann::json j = {{"k_multiple", c.k_multiple}, {"gs_multiple", c.gs_multiple},
                      {"n_multiple", c.n_multiple}, {"m_min", c.m_min},
                      {"m_max", c.m_max}};
  // Only where bounded, so that the constraints stored before the fields below existed read
  // the same.
  if (c.k_max != 0) j["k_max"] = c.k_max;
  if (c.k_min != 0) j["k_min"] = c.k_min;
  if (c.gs_power_of_two) j["gs_power_of_two"] = true;
  if (c.head_group_multiple > 1) j["head_group_multiple"] = c.head_group_multiple;
  if (c.query_rows_min > 1) j["query_rows_min"] = c.query_rows_min;
  if (c.head_group_max != 0) j["head_group_max"] = c.head_group_max;
  if (c.n_min != 0) j["n_min"] = c.n_min;
  if (c.split_tile_rows != 0) j["split_tile_rows"] = c.split_tile_rows;
  return j;
}

Constraints constraints_from_json(const nlohmann::json& j, const std::string& label) {
  if (!j.is_object()) throw std::invalid_argument(label + " is not a JSON object");
  Constraints c;
  auto read = [&](const char* name, uint32_t& field) {
    const auto it = j.find(name);
    if (it == j.end()) return;
    if (!it->is_number_integer() || it->get<int64_t>() < 0 ||
        it->get<int64_t>() > std::numeric_limits<uint32_t>::max()) {
      throw std::invalid_argument(label + "." + name + " is not an unsigned integer");
    }
    field = static_cast<uint32_t>(it->get<int64_t>());
  };
  read("k_multiple", c.k_multiple);
  read("gs_multiple", c.gs_multiple);
  read("n_multiple", c.n_multiple);
  read("m_min", c.m_min);
  read("m_max", c.m_max);
  read("k_max", c.k_max);
  read("k_min", c.k_min);
  if (const auto it = j.find("gs_power_of_two"); it != j.end()) {
    if (!it->is_boolean()) throw std::invalid_argument(label + ".gs_power_of_two is not a boolean");
    c.gs_power_of_two = it->get<bool>();
  }
  read("head_group_multiple", c.head_group_multiple);
  read("query_rows_min", c.query_rows_min);
  read("head_group_max", c.head_group_max);
  read("n_min", c.n_min);
  read("split_tile_rows", c.split_tile_rows);
  return c;
}

}  // namespace vktune::kernels
