// Import of the JSON document's best-row sections: "winners" (each problem's fastest variant)
// and "ranked" (each problem's fastest few, Catalog::ranked, for the runtime's ranking of
// untuned shapes). Internal to db/'s JSON import.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "db/json_reader.h"
#include "db/records.h"

namespace vktune::db::json_read {

// How many entries the document's devices, problems, kernels and runs sections hold: the range
// of a best row's indices.
struct SectionSizes {
  size_t devices = 0, problems = 0, kernels = 0, runs = 0;
};

// The rows of a version 2 best-row section ("winners" or "ranked"), ids assigned as
// catalog_from_json does (index + 1). Throws Error naming the offending cell.
std::vector<BestRow> parse_best_rows(const Reader& r, const json& doc, const char* section,
                                     const SectionSizes& sizes);

// The ranked rows of a document of `version`: its "ranked" section, validated like the
// winners; documents from before that section (version 1, or version 2 written earlier) rank
// their `winners` alone.
std::vector<BestRow> parse_ranked(const Reader& r, const json& doc, uint32_t version,
                                  const std::vector<BestRow>& winners, const SectionSizes& sizes);

}  // namespace vktune::db::json_read
