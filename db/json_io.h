// The database as one schema-versioned JSON document, for export, import, merges and the
// runtime. Rows refer to each other within the document (by index into its own sections; in
// version 1 by natural keys), never by database row ids, so documents from different
// databases combine.
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "db/records.h"
#include "db/store.h"

namespace vktune::db {

// {"format":"vktune-db","version":kJsonFormatVersion,...}. Bump on any incompatible change.
// Version 2 (written since the H100 database outgrew version 1): devices, kernels, problems
// and runs as objects, as before; measurements, coverage and winners as one JSON array per
// row, in the column order named by the document's "columns" object, referring to devices,
// kernels, problems and runs by their 0-based index in the document's own arrays. Version 1
// repeated every reference as a nested natural-key object (~660 bytes per measurement);
// import and catalog_from_json still read it. The measurement rows come under one of two headers
// (json_columns.h: with or without the rates); the header tells an importer which, and the
// runtime reads no measurements, so both are version 2.
// Version 3 is version 2 whose kernels may carry `specialization_json` (the constants their
// SPIR-V takes at pipeline creation). A reader of version 2 would ignore that field and run such
// a kernel at its shader's default sizes, so an export is version 3 only where some kernel of it
// has specialisation constants, and version 2, readable by every earlier vktune, otherwise.
inline constexpr int kJsonFormatVersion = 3;
// The version of a document none of whose kernels has specialisation constants.
inline constexpr int kJsonUnspecialisedVersion = 2;
// The oldest version import and catalog_from_json read.
inline constexpr int kJsonOldestReadVersion = 1;

// What an export holds: everything, or only the winners with the rows they refer to (their
// kernels, problems, runs and winning measurements; every device; no coverage) and the ranked
// rows with their kernels — what a runtime needs, a small fraction of the whole, and importing
// it reproduces the same winners. A winners export carries SPIR-V for exactly the kernels a
// runtime can answer with: the winners' and the first kRankedPickable of each ranked list; the
// other ranked kernels only score those (runtime/rank.h), and their SPIR-V (~25 KB each on the
// H100) would grow the shipped file fourfold.
enum class ExportScope { all, winners };

// Sets the SPIR-V of a kernel the store holds none for, and the specialisation that SPIR-V takes
// (compiled from its family and knobs: the tools pass tuner::fill_spirv; db/ has no shader
// compiler). Throws Error when it cannot.
using SpirvSource = std::function<void(KernelRecord&)>;

// The store (or its winners' part): devices, kernels (SPIR-V as base64), problems, runs,
// measurements, coverage (per run, device and problem: legal, measured, stages, budget_cut),
// and the current winners (derived, for readers that do not want to rank measurements).
// A winners export asks `spirv_source`, where given, for each kernel a runtime can answer with
// whose SPIR-V the store lacks; without it such kernels go without.
nlohmann::json export_json(const Store& store, ExportScope scope = ExportScope::all,
                           const SpirvSource& spirv_source = {});
// export_json as text. Each row of measurements, coverage and winners and each entry of
// devices, kernels, problems and runs starts a line of its own, so the file diffs by row;
// `indent` >= 0 indents the sections and expands the entry objects (rows stay one line each);
// -1 writes everything else compactly (no indentation, no spaces).
std::string export_json_text(const Store& store, int indent = 1,
                             ExportScope scope = ExportScope::all,
                             const SpirvSource& spirv_source = {});

// Reads versions kJsonOldestReadVersion..kJsonFormatVersion. Validates every field of
// `document` first (a missing or wrong-typed field throws Error naming its path, e.g.
// "measurements[3][6]: median_ns: expected a number, got string", in version 1
// "measurements[3].median_ns: ..."; a reference that resolves to nothing as well, e.g.
// "measurements[12][2]: problem index 999 out of range (220 problems)"), then adds it to
// `store` in one transaction with OnConflict::keep. `label` names the source in errors. The
// `winners` section is checked for shape but not stored: `best` recomputes it. The
// `coverage` section may be absent (documents from before schema v3, winners-only exports); a
// coverage row's `measured` is checked but recounted from the imported measurements
// (Store::put_coverage).
//
// Kernels the runtime could not run are refused too, by path: a workgroup_size of 0, a
// constraints_json whose multiples are 0, SPIR-V that is no module (db/spirv_check.h). And the
// checks db/ cannot make, where `checks` gives them: each problem goes to `checks.problem` (the
// catalogue's validation) and each module that passes the header checks to `checks.spirv`
// (SPIRV-Tools' validator, kernels/vk/spirv_validate.h); a non-empty answer refuses the document
// with "problems[3]: <answer>" or "kernels[7].spirv: <answer>".
//
// A measurement's GB/s and GFLOP/s are read where the document carries them (version 1, and
// version 2 rows under the columns with rates, json_columns.h); the export leaves them out, and
// `checks.rates` derives them for every row with a median, as the tuner computed them when it
// stored the row. Without it, or where it answers nullopt, they stay null.
using ProblemCheck = std::function<std::string(const Problem&)>;
using SpirvCheck = std::function<std::string(std::span<const uint8_t>)>;
struct Rates {
  double gbps = 0;    // bytes moved / median_ns
  double gflops = 0;  // flops / median_ns
};
// The rates of a dispatch of `kernel` (its layout) on `problem` that took `median_ns`. db/ knows
// no op's sizes: the tools give the catalogue's (db/ops/db_tools.cpp).
using RateSource =
    std::function<std::optional<Rates>(const Problem&, const KernelRecord&, double median_ns)>;
struct ImportChecks {
  ProblemCheck problem;
  SpirvCheck spirv;
  RateSource rates;
};
ImportStats import_json(Store& store, const nlohmann::json& document, const std::string& label,
                        const ImportChecks& checks = {});
// Parses text first; a syntax error throws Error with the parser's position.
ImportStats import_json_text(Store& store, std::string_view text, const std::string& label,
                             const ImportChecks& checks = {});

// Applies to an SQLite database's kernels and problems the row checks import_json applies to a
// document's: a workgroup_size of 0, a multiple of 0, SPIR-V that is no module, and `checks`.
// Throws Error naming the store's label and the row as its export would, e.g.
// "a.db: kernels[3].spirv: ..." (rows in id order, 0-based).
void check_rows(const Store& store, const ImportChecks& checks);

// Reads the parts a lookup needs (devices, kernels, problems, winners) straight from a
// document, with the same validation; ids are assigned 1..n in document order.
Catalog catalog_from_json(std::string_view text, const std::string& label,
                          const ImportChecks& checks = {});

}  // namespace vktune::db
