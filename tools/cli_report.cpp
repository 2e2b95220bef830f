// `vktune report`: the tuning report of a database as HTML, Markdown, CSV, JSON or text.
#include <memory>

#include "tools/cli.h"
#include "tools/report/report.h"

namespace vktune::cli {

void add_report_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("report", "write the tuning report of a database");
  auto request = std::make_shared<report::ReportRequest>();
  cmd->add_option("--db", request->db_path, "kernel database (.db, or a JSON document of `vktune export`)")->required();
  cmd->add_option("--format", request->format,
                  "html (one self-contained page), md, csv, json (the export format), txt or "
                  "summary-json (winners and the numbers that qualify them, for scripts)")
      ->capture_default_str();
  cmd->add_option("-o,--output", request->output, "output file; - for standard output")->required();
  cmd->add_option("--device", request->device,
                  "only devices whose database id or name (case-insensitive substring) matches");
  cmd->add_option("--heatmap-problem", request->heatmap_problem,
                  "problem of the tiled TM x TN heat map, e.g. \"q4gsw M=64 N=4096 K=4096 gs=32\" "
                  "(default: the largest-M q4gsw problem with tiled results)");
  cmd->add_option("--peak-tflops", request->peak_tflops,
                  "the device's compute roof for the roofline, from its datasheet (default: the "
                  "highest rate any winner reached)")
      ->check(number_check(/*allow_zero=*/false));
  cmd->callback([request] {
    require_file_inputs({request->db_path});
    refuse_to_overwrite(request->db_path, request->output);
    report::write_report(*request);
  });
}

}  // namespace vktune::cli
