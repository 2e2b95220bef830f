// Markdown and CSV renderings of a Summary: the same numbers as the HTML report and the
// plain-text table (render_table in summary.h).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "tools/report/summary.h"

namespace vktune::report {

// Per device: a heading, the fingerprint, one table row per problem, the geometric means and
// the status counts; then the runs.
std::string render_markdown(const Summary& summary);

// The CSV header's column names, in order.
const std::vector<std::string>& csv_columns();

// RFC 4180: a header line, then one record per (device, problem); fields holding a comma,
// quote, CR or LF are quoted with quotes doubled; records end in CRLF. Absent values are
// empty fields. Times in ns, bandwidth in GB/s. The coverage columns: legal, measured,
// budget_cut ("true" when the search is unfinished, ProblemSummary::cut) and stages
// (format_stages); legal, budget_cut and stages are empty where coverage is unknown.
std::string render_csv(const Summary& summary);

// Quotes one field when RFC 4180 requires it.
std::string csv_field(std::string_view text);

// Parses RFC 4180 text back into records (tests and tools that read our CSV). Throws
// std::invalid_argument on an unterminated quote.
std::vector<std::vector<std::string>> parse_csv(std::string_view text);

}  // namespace vktune::report
