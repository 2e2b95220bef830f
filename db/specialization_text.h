// A kernel's specialisation constants as the database stores them (kernels.specialization_json,
// export documents): written and read here only. Import checks the text with this reader, the
// runtime builds a pipeline's constants with it, the tuner writes it with the writer.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace vktune::db {

// One constant: the shader's constant_id and the value the pipeline gives it.
struct SpecPair {
  uint32_t constant_id = 0;
  uint32_t value = 0;
};

// Where a text is wrong: `where` the part at fault, appended to the text's own path ("" for the
// whole text, "[1]", "[0].value"), and `why` what is wrong there.
struct SpecTextError {
  std::string where, why;
};

// [[constant_id, value], ...] in the order given (ascending id); "[]" for none.
std::string specialization_text(std::span<const SpecPair> pairs);

// The pairs of `text`: a JSON array of [constant_id, value] pairs of unsigned 32-bit integers,
// ids strictly ascending (one value per constant). None, with *error filled, where it is not.
std::optional<std::vector<SpecPair>> parse_specialization_text(const std::string& text,
                                                                SpecTextError* error);

}  // namespace vktune::db
