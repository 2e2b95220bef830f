// `vktune report` as a library call: open the database, summarize, render, write the file.
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "db/store.h"
#include "tools/report/html.h"
#include "tools/report/summary.h"

namespace vktune::report {

enum class Format { html, md, csv, json, txt, summary_json };

// "html", "md" (or "markdown"), "csv", "json", "txt", "summary-json"; nullopt for anything else.
std::optional<Format> parse_format(std::string_view name) noexcept;

// Any failure of the report command a user can fix: missing database, unknown format, bad
// option, unwritable output. what() is the whole message.
class ReportError : public std::runtime_error {
 public:
  explicit ReportError(const std::string& message) : std::runtime_error(message) {}
};

struct ReportRequest {
  std::string db_path;
  std::string format = "html";
  std::string output;           // "-": standard output
  std::string device;           // SummaryOptions::device; not allowed with json
  std::string heatmap_problem;  // parse_problem_label syntax; html only; empty: automatic
  std::optional<double> peak_tflops;  // HtmlOptions::peak_gflops / 1000; html only
};

// Renders `store` in `format`. json is db::export_json_text (the whole database); summary-json
// is render_summary_json.
std::string render_report(const db::Store& store, Format format, const SummaryOptions& summary,
                          const HtmlOptions& html);

// Does the whole command. Throws ReportError (and passes nothing else on: database errors are
// rethrown as ReportError naming the file).
void write_report(const ReportRequest& request);

}  // namespace vktune::report
