// Chart layout: fixed pixel geometry (the page is at most ~1000 px wide), scales computed
// from the data, every label through Svg (which escapes it).
#include "tools/report/charts.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>

#include "tools/report/svg.h"

namespace vktune::report {
namespace {

constexpr double kWidth = 960;
constexpr double kLabelWidth = 270;  // group labels, right-aligned at kPlotX0 - 8
constexpr double kPlotX0 = kLabelWidth;
constexpr double kPlotX1 = kWidth - 130;  // room for value labels right of the bars
constexpr double kTop = 34;               // legend row above the plot
constexpr double kBarH = 14, kBarGap = 2, kGroupGap = 12;
constexpr double kBottom = 46;  // tick labels and axis title

// "3 significant digits" for times and rates.
std::string sig3(double v) {
  char buf[64];
  if (v >= 100) {
    std::snprintf(buf, sizeof buf, "%.0f", v);
  } else if (v >= 10) {
    std::snprintf(buf, sizeof buf, "%.1f", v);
  } else if (v >= 1) {
    std::snprintf(buf, sizeof buf, "%.2f", v);
  } else {
    std::snprintf(buf, sizeof buf, "%.3g", v);
  }
  return buf;
}

std::string us_text(double ns) { return sig3(ns / 1000.0) + " us"; }

// Maps a data value to x in [kPlotX0, kPlotX1].
struct Scale {
  bool log = false;
  double lo = 0, hi = 1;
  double x(double v) const {
    double t =
        log ? (std::log10(std::max(v, lo)) - std::log10(lo)) / (std::log10(hi) - std::log10(lo))
            : (v - lo) / (hi - lo);
    return kPlotX0 + std::clamp(t, 0.0, 1.0) * (kPlotX1 - kPlotX0);
  }
};

Scale make_scale(bool log, double min_v, double max_v) {
  Scale s;
  s.log = log;
  if (log) {
    double lo = std::pow(10.0, std::floor(std::log10(min_v)));
    if (lo >= min_v) lo /= 10;  // keep the smallest bar visible
    double hi = std::pow(10.0, std::ceil(std::log10(max_v)));
    if (hi <= lo) hi = lo * 10;
    s.lo = lo;
    s.hi = hi;
  } else {
    const double raw = std::max(max_v, 1e-9) / 5;
    const double mag = std::pow(10.0, std::floor(std::log10(raw)));
    double step = mag;
    for (double m : {1.0, 2.0, 5.0, 10.0}) {
      if (m * mag >= raw) {
        step = m * mag;
        break;
      }
    }
    s.lo = 0;
    s.hi = std::ceil(max_v / step) * step;
    if (s.hi <= 0) s.hi = 1;
  }
  return s;
}

std::vector<std::pair<double, bool>> ticks(const Scale& s) {  // (value, labelled)
  std::vector<std::pair<double, bool>> out;
  if (s.log) {
    const int decades = static_cast<int>(std::lround(std::log10(s.hi / s.lo)));
    for (double d = s.lo; d <= s.hi * 1.0001; d *= 10) {
      for (double m : {1.0, 2.0, 5.0}) {
        const double v = d * m;
        if (v > s.hi * 1.0001) break;
        out.push_back({v, m == 1.0 || decades <= 2});
      }
    }
  } else {
    const double step = s.hi / 5;
    for (int i = 0; i <= 5; ++i) out.push_back({step * i, true});
  }
  return out;
}

std::string tick_text(double v) {
  char buf[64];
  if (v >= 1 && v < 1e9 && v == std::floor(v)) {
    std::snprintf(buf, sizeof buf, "%.0f", v);
  } else {
    std::snprintf(buf, sizeof buf, "%g", v);
  }
  return buf;
}

}  // namespace

std::string render_bar_chart(const BarChart& chart) {
  double min_v = INFINITY, max_v = 0;
  size_t bars = 0, groups = 0;
  for (const BarGroup& g : chart.groups) {
    size_t drawn = 0;
    for (const Bar& b : g.bars) {
      if (chart.log_scale && !(b.value > 0)) continue;
      min_v = std::min(min_v, b.value);
      max_v = std::max(max_v, b.value);
      ++drawn;
    }
    bars += drawn;
    groups += drawn ? 1 : 0;
  }
  if (bars == 0) return {};
  if (chart.limit) max_v = std::max(max_v, *chart.limit);
  const Scale scale = make_scale(chart.log_scale, min_v, max_v * (chart.log_scale ? 1 : 1.02));

  const double plot_h =
      static_cast<double>(bars) * (kBarH + kBarGap) + static_cast<double>(groups) * kGroupGap;
  Svg svg(kWidth, kTop + plot_h + kBottom, chart.aria_label);

  // Legend.
  double lx = kPlotX0;
  for (const LegendEntry& e : chart.legend) {
    svg.rect(lx, 10, 12, 12, "swatch " + e.cls);
    svg.text(lx + 17, 20, e.label, "legend");
    lx += 30 + 7.0 * static_cast<double>(e.label.size());
  }
  if (chart.limit) {
    svg.line(lx, 16, lx + 18, 16, "limit");
    svg.text(lx + 23, 20, chart.limit_label, "legend");
  }

  // Grid and axis.
  const double y_axis = kTop + plot_h;
  for (const auto& [v, labelled] : ticks(scale)) {
    const double x = scale.x(v);
    svg.line(x, kTop - 4, x, y_axis, labelled ? "grid" : "grid minor");
    if (labelled) svg.text(x, y_axis + 15, tick_text(v), "tick", "middle");
  }
  svg.line(kPlotX0, y_axis, kPlotX1, y_axis, "axis");
  svg.line(kPlotX0, kTop - 4, kPlotX0, y_axis, "axis");
  svg.text((kPlotX0 + kPlotX1) / 2, y_axis + 36, chart.axis_title, "axis-title", "middle");

  // Bars.
  double y = kTop + kGroupGap / 2;
  for (const BarGroup& g : chart.groups) {
    std::vector<const Bar*> drawn;
    for (const Bar& b : g.bars) {
      if (!chart.log_scale || b.value > 0) drawn.push_back(&b);
    }
    if (drawn.empty()) continue;
    const double group_h = static_cast<double>(drawn.size()) * (kBarH + kBarGap) - kBarGap;
    svg.text(kPlotX0 - 8, y + group_h / 2 + 4, g.label, "group-label", "end");
    for (const Bar* b : drawn) {
      const double x1 = scale.x(b->value);
      svg.rect(kPlotX0, y, x1 - kPlotX0, kBarH, b->cls, b->title);
      svg.text(x1 + 4, y + kBarH - 3, b->value_text, "value");
      y += kBarH + kBarGap;
    }
    y += kGroupGap - kBarGap;
  }
  if (chart.limit) {
    const double x = scale.x(*chart.limit);
    svg.line(x, kTop - 4, x, y_axis, "limit");
  }
  return svg.str();
}

BarChart family_chart(const ProblemSummary& problem) {
  BarChart c;
  c.aria_label = "Fastest variant per family for " + db::ops::problem_label(problem.problem);
  c.axis_title = "median GPU time per dispatch, microseconds (log scale)";
  c.log_scale = true;
  c.legend = {{"bar-family", "fastest variant of the family"}};
  for (const FamilyBest& f : problem.family_best) {
    c.groups.push_back({f.family,
                        {{f.median_ns / 1000.0, "bar-family", us_text(f.median_ns),
                          f.variant_key + ": " + us_text(f.median_ns)}}});
  }
  return c;
}

std::string render_heatmap(const ProblemSummary& problem) {
  if (problem.tiles.empty()) return {};
  std::set<uint32_t> tms{1, 2, 4, 8}, tns{1, 2, 4, 8};
  double lo = INFINITY, hi = 0;
  for (const TileCell& t : problem.tiles) {
    tms.insert(t.tm);
    tns.insert(t.tn);
    lo = std::min(lo, t.median_ns);
    hi = std::max(hi, t.median_ns);
  }
  constexpr double kCellW = 96, kCellH = 46, kX0 = 90, kY0 = 56;
  const double grid_w = kCellW * static_cast<double>(tns.size());
  const double grid_h = kCellH * static_cast<double>(tms.size());
  constexpr int kLegendSteps = 10;
  const double width = kX0 + grid_w + 40 + 16 + 150;
  Svg svg(width, kY0 + grid_h + 30,
          "Heat map of q4gsw_tiled TM x TN for " + db::ops::problem_label(problem.problem));

  svg.text(kX0 + grid_w / 2, 18, "TN (outputs per thread along N)", "axis-title", "middle");
  svg.vtext(22, kY0 + grid_h / 2, "TM (rows per thread)", "axis-title");
  size_t col = 0;
  for (uint32_t tn : tns) {
    svg.text(kX0 + kCellW * (static_cast<double>(col++) + 0.5), kY0 - 10, std::to_string(tn),
             "tick", "middle");
  }
  size_t row = 0;
  for (uint32_t tm : tms) {
    const double y = kY0 + kCellH * static_cast<double>(row++);
    svg.text(kX0 - 10, y + kCellH / 2 + 4, std::to_string(tm), "tick", "end");
    col = 0;
    for (uint32_t tn : tns) {
      const double x = kX0 + kCellW * static_cast<double>(col++);
      const auto it = std::find_if(problem.tiles.begin(), problem.tiles.end(),
                                   [&](const TileCell& t) { return t.tm == tm && t.tn == tn; });
      if (it == problem.tiles.end()) {
        svg.rect(x + 1, y + 1, kCellW - 2, kCellH - 2, "heat-empty",
                 "TM=" + std::to_string(tm) + " TN=" + std::to_string(tn) + ": not measured");
        svg.text(x + kCellW / 2, y + kCellH / 2 + 4, "-", "heat-text", "middle");
        continue;
      }
      const double t =
          hi > lo ? (std::log(it->median_ns) - std::log(lo)) / (std::log(hi) - std::log(lo)) : 0;
      char fill[48];
      std::snprintf(fill, sizeof fill, "hsl(%.0f,65%%,%.0f%%)", 120.0 * (1 - t), 62.0 - 8 * t);
      svg.rect(x + 1, y + 1, kCellW - 2, kCellH - 2, "heat-cell",
               it->variant_key + ": " + us_text(it->median_ns), fill);
      svg.text(x + kCellW / 2, y + kCellH / 2 + 4, us_text(it->median_ns),
               it->median_ns == lo ? "heat-text best" : "heat-text", "middle");
    }
  }
  // Colour legend: fastest at the top.
  const double lx = kX0 + grid_w + 40;
  for (int i = 0; i < kLegendSteps; ++i) {
    const double t = static_cast<double>(i) / (kLegendSteps - 1);
    char fill[48];
    std::snprintf(fill, sizeof fill, "hsl(%.0f,65%%,%.0f%%)", 120.0 * (1 - t), 62.0 - 8 * t);
    svg.rect(lx, kY0 + grid_h * i / kLegendSteps, 16, grid_h / kLegendSteps + 0.5, "heat-legend",
             {}, fill);
  }
  svg.text(lx + 22, kY0 + 10, us_text(lo) + " (fastest)", "tick");
  svg.text(lx + 22, kY0 + grid_h, us_text(hi) + " (slowest)", "tick");
  return svg.str();
}

}  // namespace vktune::report
