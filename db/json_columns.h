// The rows of the JSON document's version 2 (db/json_io.h), shared by the export and the import:
// the columns of each row type, in order.
//
// Measurements, coverage and winners are written as one JSON array per row, in the order of
// the column names in the document's "columns" object, and refer to devices, kernels,
// problems and runs by 0-based index into the document's own arrays. Why this layout:
// - Size. Version 1 repeated each row's device fingerprint, problem and kernel as nested
//   objects, and every field name in every row: ~660 bytes a measurement, 94 of the H100
//   database's 115 MB. As an array of indices and values a measurement takes ~80 bytes, nearly
//   all of it the times, which keep full (round-trip exact) double precision.
// - Diffs. export_json_text writes each row on one line of its own, so adding a run adds
//   lines and changes none; column-wise arrays would be smaller still but rewrite every column
//   line on any change.
// - Readability. The header names the columns once; a reader (or a script) looks up a column
//   by name there and an index in the section it names.
// The free-text `message` and the variable-length `stages` come last so the fixed-width
// columns before them line up from row to row.
#pragma once

#include <array>
#include <cstddef>
#include <nlohmann/json.hpp>
#include <span>
#include <string_view>

namespace vktune::db::json_columns {

enum MeasurementColumn : size_t {
  m_run, m_device, m_problem, m_kernel, m_status, m_n, m_median_ns, m_min_ns, m_p10_ns,
  m_p90_ns, m_max_error, m_message, kMeasurementColumnCount
};
constexpr std::array<const char*, kMeasurementColumnCount> kMeasurementColumns = {
    "run",       "device", "problem", "kernel", "status",    "n",
    "median_ns", "min_ns", "p10_ns",  "p90_ns", "max_error", "message"};

// The measurement columns a document may also carry: each row's GB/s and GFLOP/s, between
// max_error and message. The export leaves them out: they follow from the row's problem, kernel
// layout and median (json_io.h, ImportChecks::rates), and their digits would double a compressed
// full export (the H200's: 3.35 MB with them, 1.61 MB without). The import reads them where a
// document has them.
enum MeasurementColumnWithRates : size_t {
  mr_gbps = m_max_error + 1, mr_gflops, mr_message, kMeasurementColumnWithRatesCount
};
constexpr std::array<const char*, kMeasurementColumnWithRatesCount> kMeasurementColumnsWithRates = {
    "run",    "device", "problem", "kernel",    "status", "n",      "median_ns",
    "min_ns", "p10_ns", "p90_ns",  "max_error", "gbps",   "gflops", "message"};

enum CoverageColumn : size_t {
  c_run, c_device, c_problem, c_legal, c_measured, c_budget_cut, c_stages, kCoverageColumnCount
};
constexpr std::array<const char*, kCoverageColumnCount> kCoverageColumns = {
    "run", "device", "problem", "legal", "measured", "budget_cut", "stages"};

enum WinnerColumn : size_t {
  w_device, w_problem, w_kernel, w_run, w_median_ns, kWinnerColumnCount
};
constexpr std::array<const char*, kWinnerColumnCount> kWinnerColumns = {
    "device", "problem", "kernel", "run", "median_ns"};

using Columns = std::span<const char* const>;

inline nlohmann::json column_names(Columns columns) {
  nlohmann::json out = nlohmann::json::array();
  for (const char* c : columns) out.push_back(c);
  return out;
}

// The position of column `name` in `columns` (columns.size() when it is not there).
inline size_t column_index(Columns columns, std::string_view name) {
  size_t i = 0;
  while (i < columns.size() && name != columns[i]) ++i;
  return i;
}

}  // namespace vktune::db::json_columns
