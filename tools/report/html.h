// The HTML report: one self-contained page (inline CSS, SVG and one small script that sorts
// and filters the table; no fonts, no URLs, so it works from file:// offline).
#pragma once

#include <optional>
#include <string>

#include "db/records.h"
#include "tools/report/summary.h"

namespace vktune::report {

struct HtmlOptions {
  // The problem whose q4gsw_tiled heat map and per-family chart are drawn. Default: per
  // device, the q4gsw problem with the largest M (then N, K) that has tiled results.
  std::optional<db::Problem> heatmap_problem;
  // The compute roof of the roofline, from the device's datasheet; absent: the highest rate
  // any winner reached.
  std::optional<double> peak_gflops;
  std::string generated_at;  // shown in the header; empty: db::utc_now()
};

// Throws std::invalid_argument when options.heatmap_problem names a problem that no device
// of `summary` measured.
std::string render_html(const Summary& summary, const HtmlOptions& options = {});

// The problem render_html draws the heat map for on `device`, or nullptr when none has tiled
// results (or the requested problem is not among them).
const ProblemSummary* heatmap_problem(const DeviceSummary& device,
                                      const std::optional<db::Problem>& requested);

}  // namespace vktune::report
