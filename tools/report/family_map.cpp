// render_family_map: rows are series sorted as the problems are, columns every M measured.
#include "tools/report/family_map.h"

#include <algorithm>
#include <set>
#include <tuple>
#include <vector>

#include "tools/report/svg.h"

namespace vktune::report {
namespace {

// Tableau-like, distinguishable in print and for the common colour-vision deficiencies; grey
// last, for whatever overflows.
constexpr const char* kPalette[] = {"#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2",
                                    "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"};

// The problem's label without its M (every label has one, "op M=m ...").
std::string series_label(const db::Problem& p) {
  std::string label = db::ops::problem_label(p);
  const size_t m = label.find(" M=");
  label.erase(m, label.find(' ', m + 1) - m);
  return label;
}

}  // namespace

FamilyColours family_colours(const DeviceSummary& device) {
  std::map<std::string, size_t> wins;
  for (const auto& p : device.problems) {
    if (!p.winner_family.empty()) ++wins[p.winner_family];
  }
  std::vector<std::pair<std::string, size_t>> order(wins.begin(), wins.end());
  std::stable_sort(order.begin(), order.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  FamilyColours out;
  const size_t n = std::size(kPalette);
  for (size_t i = 0; i < order.size(); ++i) out[order[i].first] = kPalette[std::min(i, n - 1)];
  return out;
}

void family_legend(Svg& svg, double x, double y, const FamilyColours& colours) {
  for (const auto& [family, colour] : colours) {
    svg.rect(x, y - 10, 12, 12, "swatch", {}, colour);
    svg.text(x + 17, y, family, "legend");
    y += 18;
  }
}

std::string render_family_map(const DeviceSummary& device, const FamilyColours& colours) {
  std::vector<std::string> series;  // in problem order
  std::set<uint32_t> ms;
  for (const auto& p : device.problems) {
    if (p.winner_key.empty()) continue;
    const std::string label = series_label(p.problem);
    if (std::find(series.begin(), series.end(), label) == series.end()) series.push_back(label);
    ms.insert(p.problem.m);
  }
  if (series.empty()) return {};
  constexpr double kLabelW = 250, kCellW = 34, kCellH = 16, kTop = 40, kLegendW = 170;
  const std::vector<uint32_t> columns(ms.begin(), ms.end());
  const double grid_w = kCellW * static_cast<double>(columns.size());
  const double legend_h = 18.0 * static_cast<double>(colours.size()) + kTop;
  const double height = std::max(kTop + kCellH * static_cast<double>(series.size()), legend_h) + 8;
  Svg svg(kLabelW + grid_w + 16 + kLegendW, height, "Winning family by M and shape");
  svg.text(kLabelW + grid_w / 2, 12, "M", "axis-title", "middle");
  for (size_t c = 0; c < columns.size(); ++c) {
    svg.text(kLabelW + kCellW * (static_cast<double>(c) + 0.5), kTop - 8,
             std::to_string(columns[c]), "tick", "middle");
  }
  for (size_t r = 0; r < series.size(); ++r) {
    svg.text(kLabelW - 6, kTop + kCellH * static_cast<double>(r) + 12, series[r], "group-label",
             "end");
  }
  for (const auto& p : device.problems) {
    if (p.winner_key.empty()) continue;
    const auto r = std::find(series.begin(), series.end(), series_label(p.problem));
    const auto c = std::find(columns.begin(), columns.end(), p.problem.m);
    svg.rect(kLabelW + kCellW * static_cast<double>(c - columns.begin()) + 1,
             kTop + kCellH * static_cast<double>(r - series.begin()) + 1, kCellW - 2, kCellH - 2,
             "fam-cell",
             db::ops::problem_label(p.problem) + ": " + p.winner_key + ", " +
                 format_number(p.median_ns / 1000.0, 2) + " us",
             colours.at(p.winner_family));
  }
  family_legend(svg, kLabelW + grid_w + 16, kTop + 4, colours);
  return svg.str();
}

}  // namespace vktune::report
