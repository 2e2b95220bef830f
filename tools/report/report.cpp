// write_report: argument checks, then render_report, then an atomic write.
#include "tools/report/report.h"

#include "db/atomic_write.h"
#include "db/error.h"
#include "db/json_io.h"
#include "db/ops/db_tools.h"
#include "tools/report/summary_json.h"
#include "tools/report/tables.h"

namespace vktune::report {

std::optional<Format> parse_format(std::string_view name) noexcept {
  if (name == "html") return Format::html;
  if (name == "md" || name == "markdown") return Format::md;
  if (name == "csv") return Format::csv;
  if (name == "json") return Format::json;
  if (name == "txt" || name == "text") return Format::txt;
  if (name == "summary-json") return Format::summary_json;
  return std::nullopt;
}

std::string render_report(const db::Store& store, Format format, const SummaryOptions& summary,
                          const HtmlOptions& html) {
  if (format == Format::json) return db::export_json_text(store);
  const Summary s = summarize(store, summary);
  switch (format) {
    case Format::html:
      return render_html(s, html);
    case Format::md:
      return render_markdown(s);
    case Format::csv:
      return render_csv(s);
    case Format::txt:
      return render_table(s);
    case Format::summary_json:
      return render_summary_json(s);
    case Format::json:
      break;
  }
  return {};
}

void write_report(const ReportRequest& request) {
  const std::optional<Format> format = parse_format(request.format);
  if (!format) {
    throw ReportError("unknown report format \"" + request.format +
                      "\"; use html, md, csv, json, txt or summary-json");
  }
  if (request.output.empty())
    throw ReportError("no output file given; use -o FILE (or -o - for stdout)");
  if (request.db_path.empty()) throw ReportError("no database given; use --db FILE");
  if (*format == Format::json && !request.device.empty()) {
    throw ReportError(
        "--device does not apply to --format json: the export holds the whole "
        "database (use `vktune export`)");
  }
  SummaryOptions summary;
  summary.device = request.device;
  HtmlOptions html;
  if (!request.heatmap_problem.empty()) {
    if (*format != Format::html)
      throw ReportError("--heatmap-problem applies to --format html only");
    try {
      html.heatmap_problem = db::ops::parse_problem_label(request.heatmap_problem);
    } catch (const std::invalid_argument& e) {
      throw ReportError(std::string("--heatmap-problem: ") + e.what());
    }
  }
  if (request.peak_tflops) {
    if (*format != Format::html) throw ReportError("--peak-tflops applies to --format html only");
    html.peak_gflops = *request.peak_tflops * 1000.0;
  }
  try {
    const db::Store store = db::ops::open_for_reading(request.db_path);
    db::write_output(request.output, render_report(store, *format, summary, html));
  } catch (const db::Error& e) {
    throw ReportError(e.what());
  } catch (const std::invalid_argument& e) {
    throw ReportError(e.what());
  }
}

}  // namespace vktune::report
