// The report's charts as inline SVG: grouped horizontal bar charts (times on a log axis,
// throughput against a limit line) and the tiled family's TM x TN heat map. CSS classes
// (bar-*, heat-cell, axis, grid, limit, ...) are styled by the page (html.cpp).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "tools/report/summary.h"

namespace vktune::report {

struct Bar {
  double value = 0;        // in the axis' unit; > 0 on a log axis (others are skipped)
  std::string cls;         // CSS class of the <rect>, e.g. "bar-winner"
  std::string value_text;  // drawn right of the bar
  std::string title;       // tooltip
};

struct BarGroup {
  std::string label;  // left of the group
  std::vector<Bar> bars;
};

struct LegendEntry {
  std::string cls;
  std::string label;
};

struct BarChart {
  std::string aria_label;
  std::string axis_title;  // under the x axis, with units
  bool log_scale = false;
  std::optional<double> limit;  // a vertical line across the plot (e.g. copy bandwidth)
  std::string limit_label;
  std::vector<LegendEntry> legend;
  std::vector<BarGroup> groups;
};

// One <svg>: a <rect class="bar-..."> per drawn bar plus one legend swatch per legend entry
// (class "swatch bar-..."). Returns "" when no group has a bar.
std::string render_bar_chart(const BarChart& chart);

// For one problem: the fastest variant of each family (us, log axis).
BarChart family_chart(const ProblemSummary& problem);

// TM (rows) x TN (columns) of the q4gsw_tiled family for one problem: one
// <rect class="heat-cell"> per measured tile, coloured from the fastest (green) to the
// slowest (red) on a log scale, with the time in the cell; unmeasured tiles are
// <rect class="heat-empty">. Returns "" when the problem has no tiled results.
std::string render_heatmap(const ProblemSummary& problem);

}  // namespace vktune::report
