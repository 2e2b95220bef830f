// render_html: page skeleton and the per-device summary; the views live in their own files
// (roofline, family_map, html_table, charts). Every piece of text from the database passes
// through escape_xml (h()).
// The charts are hand-written SVG, not an inlined library (Debian's libjs-vega, chart.js, d3):
// a scatter, a grid and a table take a few hundred lines here, while inlining a library would
// add hundreds of kB (chart.js ~200 kB minified, vega more) to every page that now weighs
// ~270 kB, and the views need no interaction beyond hover titles and the table's sort.
#include "tools/report/html.h"

#include <algorithm>
#include <cstdio>
#include <stdexcept>

#include "tools/report/anomalies.h"
#include "tools/report/charts.h"
#include "tools/report/family_map.h"
#include "tools/report/knob_sensitivity.h"
#include "tools/report/html_cells.h"
#include "tools/report/html_table.h"
#include "tools/report/roofline.h"

namespace vktune::report {
namespace {

constexpr const char* kStyle = R"css(
:root { color-scheme: light; }
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
       margin: 24px auto; max-width: 1400px; padding: 0 16px; color: #1d2125; background: #fff;
       line-height: 1.4; }
h1 { font-size: 26px; margin: 0 0 4px; }
h2 { font-size: 20px; margin: 36px 0 8px; padding-bottom: 4px; border-bottom: 2px solid #dee2e6; }
h3 { font-size: 16px; margin: 24px 0 6px; }
p.meta, p.note { color: #5c636a; margin: 4px 0; font-size: 14px; }
table { border-collapse: collapse; font-size: 13px; margin: 8px 0 12px; }
th, td { border-bottom: 1px solid #e9ecef; padding: 4px 8px; text-align: left; vertical-align: top; }
th { background: #f1f3f5; font-weight: 600; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
td.problem { white-space: nowrap; }
td code { overflow-wrap: anywhere; }
code { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; font-size: 12px; }
table.kv th { width: 190px; }
table.knobs caption { text-align: left; font-size: 13px; font-weight: 600; }
span.knobval { white-space: nowrap; margin-right: 10px; }
.good { color: #2b8a3e; font-weight: 600; }
.bad { color: #c92a2a; font-weight: 600; }
tr.cut td { background: #fff4e6; }
figure { margin: 12px 0 20px; }
figcaption { font-size: 13px; color: #495057; margin-bottom: 4px; font-weight: 600; }
svg { display: block; max-width: 100%; height: auto; font-family: inherit; }
svg text { fill: #343a40; font-size: 11px; }
svg .legend { font-size: 12px; }
svg .group-label { font-size: 11px; }
svg .value { font-size: 10.5px; fill: #495057; }
svg .tick { font-size: 10.5px; fill: #495057; }
svg .axis-title { font-size: 12px; fill: #343a40; font-weight: 600; }
svg .axis { stroke: #495057; stroke-width: 1; }
svg .grid { stroke: #dee2e6; stroke-width: 1; }
svg .grid.minor { stroke: #f1f3f5; }
svg .limit { stroke: #e03131; stroke-width: 2; stroke-dasharray: 6 3; }
svg .bar-winner { fill: #2f9e44; }
svg .bar-fixed { fill: #1c7ed6; }
svg .bar-naive { fill: #adb5bd; }
svg .bar-gbps { fill: #7048e8; }
svg .bar-family { fill: #f08c00; }
svg .heat-cell { stroke: #fff; stroke-width: 1; }
svg .heat-empty { fill: #f1f3f5; stroke: #fff; }
svg .heat-text { font-size: 11px; fill: #212529; }
svg .heat-text.best { font-weight: 700; }
svg .roof { stroke: #1c7ed6; stroke-width: 2; stroke-dasharray: 6 3; }
svg .roof-point { stroke: #212529; stroke-width: 0.5; fill-opacity: 0.85; }
svg .fam-cell { stroke: none; }
.cards { display: flex; flex-wrap: wrap; gap: 8px 28px; align-items: flex-start; }
.cards table { margin: 0; }
ul.attention { font-size: 13px; margin: 4px 0; padding-left: 20px; columns: 2; }
.flag { display: inline-block; background: #ffe3e3; color: #862e2e; border-radius: 3px;
        padding: 0 4px; margin: 1px 0; font-size: 12px; }
table.sortable td code { font-size: 11px; display: inline-block; min-width: 200px; }
div.scroll { overflow-x: auto; }
table.sortable th { cursor: pointer; user-select: none; position: sticky; top: 0; }
table.sortable th[aria-sort=ascending]::after { content: " \25B2"; }
table.sortable th[aria-sort=descending]::after { content: " \25BC"; }
p.filter { font-size: 13px; margin: 8px 0 0; }
details { margin: 12px 0; }
summary { cursor: pointer; font-weight: 600; }
)css";

std::string hex4(uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%04x", v);
  return buf;
}

std::string api_text(uint32_t v) {
  return std::to_string(v >> 22) + "." + std::to_string((v >> 12) & 0x3ff) + "." +
         std::to_string(v & 0xfff);
}

bool same_problem(const db::Problem& a, const db::Problem& b) {
  return a.op == b.op && a.dtype == b.dtype && a.m == b.m && a.n == b.n && a.k == b.k &&
         a.group_size == b.group_size && a.heads == b.heads && a.kv_heads == b.kv_heads;
}

std::string status_table(const StatusCounts& c) {
  std::string out = "<table><tr>";
  constexpr db::Status kAll[] = {
      db::Status::ok,          db::Status::wrong_result, db::Status::compile_error,
      db::Status::unsupported, db::Status::timeout,      db::Status::device_lost};
  for (db::Status s : kAll) out += "<th class=\"num\">" + h(db::to_string(s)) + "</th>";
  out += "<th class=\"num\">total</th></tr><tr>";
  for (db::Status s : kAll) out += "<td class=\"num\">" + std::to_string(c[s]) + "</td>";
  out += "<td class=\"num\">" + std::to_string(c.total()) + "</td></tr></table>\n";
  return out;
}

std::string fingerprint_table(const db::DeviceRecord& d) {
  auto row = [](std::string_view k, const std::string& v) {
    return "<tr><th>" + h(k) + "</th><td>" + v + "</td></tr>";
  };
  std::string out = "<table class=\"kv\">";
  out += row("name", h(d.name));
  out += row("vendor / device id", h(hex4(d.vendor_id) + " / " + hex4(d.device_id)));
  out += row("type", h(d.device_type));
  out += row("driver", h(d.driver_version_text) + " (driver id " + std::to_string(d.driver_id) +
                           ", raw version " + std::to_string(d.driver_version) + ")");
  out += row("driver info", h(d.driver_info));
  out += row("Vulkan API", h(api_text(d.api_version)));
  out += row("pipelineCacheUUID", "<code>" + h(d.pipeline_cache_uuid) + "</code>");
  out += row("subgroup size", std::to_string(d.subgroup_size));
  out += row("measured copy bandwidth",
             h(d.copy_bandwidth_gbps ? format_number(d.copy_bandwidth_gbps, 1) + " GB/s"
                                     : std::string("not measured")));
  return out + "</table>\n";
}

std::string geomean_table(const DeviceSummary& ds) {
  std::string out =
      "<table><tr><th>M class</th><th class=\"num\">problems</th>"
      "<th class=\"num\">geomean x fixed</th></tr>";
  for (const Geomean& g : ds.geomean_fixed) {
    out += "<tr><td>" + h(g.label == "all" ? std::string("all problems") : "q4gsw M " + g.label) +
           "</td><td class=\"num\">" + std::to_string(g.count) + "</td>" + speedup_cell(g.speedup) +
           "</tr>";
  }
  return out + "</table>\n";
}

// Problems as rows, devices as columns: winner time and speedup over fixed routing.
std::string device_matrix(const Summary& s) {
  std::vector<db::Problem> problems;
  for (const auto& ds : s.devices) {
    for (const auto& p : ds.problems) {
      if (std::none_of(problems.begin(), problems.end(),
                       [&](const db::Problem& q) { return same_problem(q, p.problem); })) {
        problems.push_back(p.problem);
      }
    }
  }
  std::sort(problems.begin(), problems.end(), [](const db::Problem& a, const db::Problem& b) {
    return std::tie(a.op, a.dtype, a.m, a.n, a.k, a.group_size) <
           std::tie(b.op, b.dtype, b.m, b.n, b.k, b.group_size);
  });
  std::string out = "<table><tr><th>problem</th>";
  for (const auto& ds : s.devices)
    out += "<th class=\"num\">" + h(ds.device.name) + "<br>us (x fixed)</th>";
  out += "</tr>\n";
  for (const auto& prob : problems) {
    out += "<tr><td class=\"problem\">" + h(db::ops::problem_label(prob)) + "</td>";
    for (const auto& ds : s.devices) {
      const auto it =
          std::find_if(ds.problems.begin(), ds.problems.end(),
                       [&](const ProblemSummary& p) { return same_problem(p.problem, prob); });
      if (it == ds.problems.end() || it->winner_key.empty()) {
        out += "<td class=\"num\">-</td>";
      } else {
        out += "<td class=\"num\" title=\"" + h(it->winner_key) + "\">" +
               h(format_number(it->median_ns / 1000.0, 2)) +
               (it->speedup_fixed ? " (" + h(format_speedup(it->speedup_fixed)) + ")"
                                  : std::string()) +
               "</td>";
      }
    }
    out += "</tr>\n";
  }
  return out + "</table>\n";
}

std::string runs_table(const Summary& s) {
  std::string out =
      "<table><tr><th>run</th><th>started</th><th>ended</th><th>strategy</th>"
      "<th>tool version</th><th>host</th><th>cache</th></tr>\n";
  for (const db::RunRecord& r : s.runs) {
    out += "<tr><td><code>" + h(r.uuid) + "</code></td><td>" + h(r.started_at) + "</td><td>" +
           h(r.ended_at.value_or("(unfinished)")) + "</td><td>" + h(r.strategy) + "</td><td>" +
           h(r.tool_version) + "</td><td>" + h(r.host) + "</td><td>" + h(r.cache_mode) +
           "</td></tr>\n";
  }
  if (s.runs.empty()) out += "<tr><td colspan=\"7\">no runs</td></tr>\n";
  return out + "</table>\n";
}

std::string figure(const std::string& caption, const std::string& svg, const std::string& cls) {
  if (svg.empty()) return "<p class=\"note\">" + h(caption) + ": no data.</p>\n";
  return "<figure class=\"" + cls + "\"><figcaption>" + h(caption) + "</figcaption>\n" + svg +
         "</figure>\n";
}

// Coverage of the device's problems: how many searches finished (every variant, or the cost
// model's or halving's choice), how many were cut, how many nobody can tell (no coverage record).
std::string coverage_table(const DeviceSummary& ds) {
  int64_t complete = 0, searched = 0, cut = 0, unknown = 0, measured = 0, legal = 0;
  for (const ProblemSummary& p : ds.problems) {
    const std::optional<bool> c = p.cut();
    (!c ? unknown : *c ? cut : p.searched() ? searched : complete) += 1;
    if (p.coverage) measured += p.measured(), legal += p.coverage->legal;
  }
  auto row = [](std::string_view k, int64_t v, const char* cls = "") {
    return "<tr><th>" + h(k) + "</th><td class=\"num" + (v ? cls : "") + "\">" +
           std::to_string(v) + "</td></tr>";
  };
  return "<table class=\"kv\">" + row("problems", static_cast<int64_t>(ds.problems.size())) +
         row("search complete", complete) + row("searched (model, halving)", searched) +
         row("search cut", cut, " bad") +
         row("coverage unknown", unknown) +
         "<tr><th>variants measured (any run) / legal (latest run)</th><td class=\"num\">" + std::to_string(measured) +
         " / " + std::to_string(legal) + "</td></tr></table>\n";
}

std::string limits_table(const DeviceSummary& ds, const Roofs& roofs) {
  const db::DeviceRecord& d = ds.device;
  std::string out = "<table class=\"kv\"><tr><th>driver</th><td>" + h(d.driver_version_text) +
                    " (Vulkan " + h(api_text(d.api_version)) + ", subgroup " +
                    std::to_string(d.subgroup_size) + ")</td></tr>";
  out += "<tr><th>copy bandwidth</th><td>" +
         h(roofs.bandwidth_gbps ? format_number(roofs.bandwidth_gbps, 1) + " GB/s (measured)"
                                : std::string("not measured")) +
         "</td></tr><tr><th>compute roof</th><td>" +
         h(format_number(roofs.compute_gflops / 1000.0, 2) + " TFLOP/s " +
           (roofs.compute_measured ? "(best any winner reached; give --peak-tflops for the "
                                     "datasheet's)"
                                   : "(given)")) +
         "</td></tr></table>\n";
  return out;
}

// Cut searches and anomalies, linked to their rows; the first kShown, then a count.
std::string attention_list(const DeviceSummary& ds, size_t index,
                           const std::vector<Anomaly>& anomalies) {
  constexpr size_t kShown = 24;
  std::vector<std::pair<size_t, std::string>> items;
  auto a = anomalies.begin();
  for (size_t i = 0; i < ds.problems.size(); ++i) {
    std::string why = ds.problems[i].cut().value_or(false) ? "search cut" : "";
    for (; a != anomalies.end() && a->problem == i; ++a) why += (why.empty() ? "" : "; ") + a->text;
    if (!why.empty()) items.emplace_back(i, why);
  }
  if (items.empty()) return "<p class=\"note\">No problem needs attention.</p>\n";
  std::string out = "<p class=\"note\">" + std::to_string(items.size()) +
                    " problem(s) need attention (tick \"flagged only\" above the table for all):</p>"
                    "<ul class=\"attention\">";
  for (size_t k = 0; k < std::min(items.size(), kShown); ++k) {
    const auto& [i, why] = items[k];
    out += "<li><a href=\"#p-" + std::to_string(index) + "-" + std::to_string(i) + "\">" +
           h(db::ops::problem_label(ds.problems[i].problem)) + "</a>: " + h(why) + "</li>";
  }
  if (items.size() > kShown) out += "<li>and " + std::to_string(items.size() - kShown) + " more</li>";
  return out + "</ul>\n";
}

std::string device_section(const DeviceSummary& ds, size_t index, const HtmlOptions& options) {
  const std::vector<Anomaly> anomalies = find_anomalies(ds);
  const FamilyColours colours = family_colours(ds);
  const Roofs roofs = roofs_of(ds, options.peak_gflops);
  std::string out = "<section class=\"device\" id=\"device-" + std::to_string(index) + "\">\n";
  out += "<h2>" + h(ds.device.name) + "</h2>\n<div class=\"cards\">" + limits_table(ds, roofs) +
         coverage_table(ds) + geomean_table(ds) + "</div>\n" +
         attention_list(ds, index, anomalies);
  out += figure("Roofline: each problem's winner", render_roofline(ds, roofs, colours),
                "chart-roofline");
  out += figure("Winning family by M (rows: shape; hover a cell for the variant)",
                render_family_map(ds, colours), "chart-families");
  if (const std::string knobs = render_knob_sensitivity(knob_sensitivity(ds)); !knobs.empty()) {
    out += "<details class=\"knob-sensitivity\"><summary>Knob sensitivity of the winning "
           "families</summary>\n" + knobs + "</details>\n";
  }
  out += "<h3>Problems</h3>\n" + render_problem_table(ds, index, anomalies);
  if (const ProblemSummary* hp = heatmap_problem(ds, options.heatmap_problem)) {
    out += "<details><summary>q4gsw_tiled knobs and families: " +
           h(db::ops::problem_label(hp->problem)) + "</summary>\n";
    out += figure("q4gsw_tiled TM x TN, best time over the other knobs: " +
                      db::ops::problem_label(hp->problem),
                  render_heatmap(*hp), "chart-heatmap");
    out += figure("Fastest variant per family: " + db::ops::problem_label(hp->problem),
                  render_bar_chart(family_chart(*hp)), "chart-family");
    out += "</details>\n";
  } else {
    out += "<p class=\"note\">No q4gsw_tiled results" +
           (options.heatmap_problem ? " for " + h(db::ops::problem_label(*options.heatmap_problem))
                                    : std::string()) +
           " on this device: no heat map.</p>\n";
  }
  out += "<details><summary>Device fingerprint and variants by status</summary>\n" +
         fingerprint_table(ds.device) + status_table(ds.status_counts) + "</details>\n";
  return out + "</section>\n";
}

}  // namespace

const ProblemSummary* heatmap_problem(const DeviceSummary& device,
                                      const std::optional<db::Problem>& requested) {
  const ProblemSummary* pick = nullptr;
  for (const ProblemSummary& p : device.problems) {
    if (p.tiles.empty()) continue;
    if (requested) {
      if (same_problem(p.problem, *requested)) return &p;
      continue;
    }
    if (!pick || std::tie(p.problem.m, p.problem.n, p.problem.k) >
                     std::tie(pick->problem.m, pick->problem.n, pick->problem.k)) {
      pick = &p;
    }
  }
  return pick;
}

std::string render_html(const Summary& summary, const HtmlOptions& options) {
  if (options.heatmap_problem) {
    bool found = false;
    for (const auto& ds : summary.devices) {
      for (const auto& p : ds.problems)
        found = found || same_problem(p.problem, *options.heatmap_problem);
    }
    if (!found) {
      throw std::invalid_argument("--heatmap-problem \"" +
                                  db::ops::problem_label(*options.heatmap_problem) +
                                  "\" was not measured on any device in the database");
    }
  }
  const std::string when = options.generated_at.empty() ? db::utc_now() : options.generated_at;
  const std::string& source = summary.source;
  std::string out =
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      "<title>vktune report: " +
      h(source) + "</title>\n<style>" + kStyle + "</style>\n</head>\n<body>\n";
  out += "<h1>vktune tuning report</h1>\n";
  out += "<p class=\"meta\">Database <code>" + h(source) + "</code>, " +
         std::to_string(summary.devices.size()) + " device(s), " +
         std::to_string(summary.runs.size()) + " run(s). Generated " + h(when) + " by vktune " +
         h(VKTUNE_VERSION) + ".</p>\n";
  out +=
      "<p class=\"note\">Times are median GPU time per dispatch (timestamp queries). "
      "\"x naive\" and \"x fixed\" are the winner's speedups over the fastest q4gsw_naive "
      "variant and over the built-in routing variant (docs/variants.md); %BW is the winner's "
      "GB/s over the device's measured copy bandwidth. \"coverage\" is the variants measured "
      "by any run out of those legal on the device (hover: variants timed per stage). \"cut\" "
      "marks an unfinished search, whose winner may not be the best: a legal variant has no "
      "result or a wall-time budget ended the latest run (vktune tune --fill finishes it); "
      "\"searched\": a finished cost-model search (--strategy model), which measures the "
      "variants its model ranks best by design; \"?\": no run recorded coverage (a database from before schema v3). \"spread\" is "
      "the winner's p90 - p10 over its median; \"margin\" how much slower the runner-up is "
      "(hover: which). Flags: a time slower than a larger M of the same shape, or a neighbouring "
      "M's winner that a cut search never tried here.</p>\n";
  if (summary.devices.size() > 1) {
    out += "<h2>Device by device</h2>\n" + device_matrix(summary);
  }
  if (summary.devices.empty()) out += "<p class=\"note\">The database holds no devices.</p>\n";
  for (size_t i = 0; i < summary.devices.size(); ++i) {
    out += device_section(summary.devices[i], i, options);
  }
  out += "<h2>Runs</h2>\n" + runs_table(summary);
  out += "<script>" + std::string(kTableScript) + "</script>\n</body>\n</html>\n";
  return out;
}

}  // namespace vktune::report
