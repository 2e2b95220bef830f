// Specialisation constants as the database stores them (kernels' specialization_json column,
// export documents): written and read here only.
#pragma once

#include <string>
#include <nlohmann/json_fwd.hpp>

#include "kernels/shader_spec.h"

namespace vktune::kernels {

// [[constant_id, value], ...] in the specialisation's order (ascending id); [] for none.
nlohmann::json to_json(const Specialization& s);

// The specialisation of `j`. Throws std::invalid_argument, starting with `label` (e.g. "kernel
// 'KEY': specialization_json"), when `j` is no array of pairs of unsigned 32-bit integers or its
// ids do not ascend strictly.
Specialization specialization_from_json(const nlohmann::json& j, const std::string& label);

}  // namespace vktune::kernels
