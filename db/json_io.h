// The database as one schema-versioned JSON document, for export, import, merges and the
// runtime. Rows refer to each other by natural keys, never by row ids, so documents from
// different databases combine.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>

#include "db/records.h"
#include "db/store.h"

namespace vktune::db {

// {"format":"vktune-db","version":kJsonFormatVersion,...}. Bump on any incompatible change.
inline constexpr int kJsonFormatVersion = 1;

// What an export holds: everything, or only the winners with the rows they refer to (their
// kernels with SPIR-V, problems, runs and winning measurements; every device; no coverage) —
// what a runtime needs, a small fraction of the whole, and importing it reproduces the same
// winners.
enum class ExportScope { all, winners };

// The store (or its winners' part): devices, kernels (SPIR-V as base64), problems, runs,
// measurements, coverage (per run, device and problem: legal, measured, stages, budget_cut),
// and the current winners (derived, for readers that do not want to rank measurements).
nlohmann::json export_json(const Store& store, ExportScope scope = ExportScope::all);
std::string export_json_text(const Store& store, int indent = 1,
                             ExportScope scope = ExportScope::all);

// Validates every field of `document` first (a missing or wrong-typed field throws Error
// naming its path, e.g. "measurements[3].median_ns: expected a number, got string"), then
// adds it to `store` in one transaction with OnConflict::keep. `label` names the source in
// errors. The `winners` section is checked for shape but not stored: `best` recomputes it.
// The `coverage` section may be absent (documents from before schema v3); a coverage row's
// `measured` is checked but recounted from the imported measurements (Store::put_coverage).
ImportStats import_json(Store& store, const nlohmann::json& document, const std::string& label);
// Parses text first; a syntax error throws Error with the parser's position.
ImportStats import_json_text(Store& store, std::string_view text, const std::string& label);

// Reads the parts a lookup needs (devices, kernels, problems, winners) straight from a
// document, with the same validation; ids are assigned 1..n in document order.
Catalog catalog_from_json(std::string_view text, const std::string& label);

}  // namespace vktune::db
