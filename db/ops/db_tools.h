// The logic behind `vktune merge`, `export`, `import` and `lookup`, as functions the CLI and
// the tests call. Errors surface as db::Error with a message naming the file.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "db/error.h"
#include "db/json_io.h"
#include "db/records.h"
#include "db/store.h"
#include "runtime/lookup_device.h"
#include "runtime/selection.h"

namespace vktune::db::ops {

// Merges every input into `output` (created if missing) with db::Store::merge_from: loss-free
// and idempotent. Inputs (any form open_for_reading reads, an SQLite database's rows checked as
// a document's are, as import_database checks them) are opened read-only and checked before the
// output is touched; one equal to the output is refused. Returns what each input added, in order.
std::vector<db::ImportStats> merge_databases(const std::vector<std::string>& inputs,
                                             const std::string& output);

// Writes db::export_json_text of `db_path` to `json_path`, indented by `indent` spaces per
// level (-1: compact, one line); only the winners' part with `winners_only`, the SPIR-V the
// database lacks for it from `spirv_source` (see db::export_json).
void export_database(const std::string& db_path, const std::string& json_path, int indent = 1,
                     bool winners_only = false, const db::SpirvSource& spirv_source = {});

// Adds the JSON document at `json_path` (zstd-compressed or not) to `db_path` (created if
// missing). Returns the rows added. Besides db/'s own checks, a problem the runtime could not
// answer for and a module SPIRV-Tools' validator refuses (kernels/vk/spirv_validate.h) refuse the
// document, by path.
db::ImportStats import_database(const std::string& json_path, const std::string& db_path);

// "devices +1, kernels +2, problems +0, runs +1, measurements +5, coverage +2".
std::string format_stats(const db::ImportStats& stats);

// Parses "0x10de" (hex) or "4318" (decimal) into a uint32; throws db::Error naming `what`.
uint32_t parse_u32(std::string_view text, std::string_view what);

// A device given by flags. Fields left unset are filled from the best matching device of
// `catalog` (same vendor and device id, the given driver version if any, else the newest
// driver), so that `--vendor-id 0x10de --device-id 0x2684` finds that device's exact entries.
struct DeviceFlags {
  std::optional<uint32_t> vendor_id, device_id, driver_id, driver_version;
  std::string device_type;          // "discrete", "integrated", "virtual", "cpu", "other" or empty
  std::string pipeline_cache_uuid;  // 32 hex digits or empty
};
runtime::LookupDevice device_from_flags(const DeviceFlags& flags, const db::Catalog& catalog);

// db::open_for_reading and db::read_catalog (a .db file, a JSON document, either one
// zstd-compressed; told apart by content), their errors as db::Error. open_for_reading
// checks the rows of either form as import_database checks a document's; read_catalog a
// document's (a lookup checks the SPIR-V of the answer it gives).
db::Store open_for_reading(const std::string& path);
// open_for_reading for a database read for its measurements alone (tune's and cost-model's
// --train-db): nothing of its SPIR-V is dispatched, so a module is not run through the validator
// (a seventh of the time a large document takes to read) but only checked to be one.
db::Store open_for_learning(const std::string& path);
db::Catalog read_catalog(const std::string& path);

// vk::parse_device_type, throwing db::Error that lists the names on an unknown one.
runtime::DeviceType parse_device_type(std::string_view name);

struct LookupResult {
  bool ok = false;     // the selection's status was ok and its SPIR-V, if any, validates
  std::string output;  // the text or JSON to print
};

// Builds a runtime::Snapshot from `catalog`, selects for (device, problem) and renders the
// answer with runtime::describe (or describe_json plus the query when `json`). An answer whose
// stored SPIR-V fails SPIRV-Tools' validation is shown with "spirv refused: <why>" (JSON:
// "spirv_refused") and is not ok.
LookupResult lookup(const db::Catalog& catalog, const runtime::LookupDevice& device,
                    const runtime::ProblemQuery& problem, bool json);

}  // namespace vktune::db::ops
