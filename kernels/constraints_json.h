// Constraints as the database stores them (kernels' constraints_json column, export documents):
// written and read here only.
#pragma once

#include <string>
#include <nlohmann/json_fwd.hpp>

#include "kernels/constraints.h"

namespace vktune::kernels {

// {"k_multiple": 8, "gs_multiple": 8, "n_multiple": 1, "m_min": 1, "m_max": 0} and, where
// bounded, k_max, k_min and head_group_multiple. The split tile is not stored.
nlohmann::json to_json(const Constraints& c);

// The constraints of `j`; a field it lacks keeps its default. Throws std::invalid_argument,
// starting with `label` (e.g. "kernel 'KEY': constraints_json"), when `j` is no object or a
// field is no unsigned 32-bit integer.
Constraints constraints_from_json(const nlohmann::json& j, const std::string& label);

}  // namespace vktune::kernels
