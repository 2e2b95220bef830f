// render_html: page skeleton, tables and the charts of charts.cpp. Every piece of text from
// the database passes through escape_xml (h()).
#include "tools/report/html.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <stdexcept>

#include "tools/report/charts.h"
#include "tools/report/svg.h"

namespace vktune::report {
namespace {

std::string h(std::string_view s) { return escape_xml(s); }

constexpr const char* kStyle = R"css(
:root { color-scheme: light; }
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
       margin: 24px auto; max-width: 1180px; padding: 0 16px; color: #1d2125; background: #fff;
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
         a.group_size == b.group_size;
}

std::string speedup_cell(std::optional<double> s) {
  if (!s) return "<td class=\"num\">-</td>";
  const char* cls = *s >= 1.05 ? " good" : (*s < 0.995 ? " bad" : "");
  return std::string("<td class=\"num") + cls + "\">" + h(format_speedup(s)) + "</td>";
}

std::string us_cell(std::optional<double> ns) {
  return "<td class=\"num\">" +
         h(format_number(ns ? std::optional(*ns / 1000.0) : std::nullopt, 2)) + "</td>";
}

std::string num_cell(std::optional<double> v, int decimals) {
  return "<td class=\"num\">" + h(format_number(v, decimals)) + "</td>";
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

std::string problem_table(const DeviceSummary& ds) {
  std::string out =
      "<table><tr><th>problem</th><th>winner</th><th class=\"num\">time us</th>"
      "<th class=\"num\">GB/s</th><th class=\"num\">%BW</th><th class=\"num\">GFLOP/s</th>"
      "<th class=\"num\">naive us</th><th class=\"num\">x naive</th>"
      "<th class=\"num\">fixed us</th><th class=\"num\">x fixed</th>"
      "<th class=\"num\">ok / tried</th><th class=\"num\">coverage</th></tr>\n";
  for (const ProblemSummary& p : ds.problems) {
    const bool won = !p.winner_key.empty();
    // An unfinished search's winner is provisional: the whole row is shaded.
    const bool cut = p.cut().value_or(false);
    out += std::string(cut ? "<tr class=\"cut\">" : "<tr>") + "<td class=\"problem\">" +
           h(problem_label(p.problem)) + "</td><td>" +
           (won ? "<code>" + h(p.winner_key) + "</code>" : std::string("(no ok variant)")) +
           "</td>" + us_cell(won ? std::optional(p.median_ns) : std::nullopt) +
           num_cell(p.gbps, 1) + num_cell(p.pct_bandwidth, 1) + num_cell(p.gflops, 1) +
           us_cell(p.naive_ns) + speedup_cell(p.speedup_naive) + us_cell(p.fixed_ns) +
           speedup_cell(p.speedup_fixed) + "<td class=\"num\">" +
           std::to_string(p.status_counts[db::Status::ok]) + " / " +
           std::to_string(p.status_counts.total()) + "</td><td class=\"num" + (cut ? " bad" : "") +
           "\" title=\"" + h(format_stages(p)) + "\">" + h(format_coverage(p)) + "</td></tr>\n";
  }
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
    out += "<tr><td class=\"problem\">" + h(problem_label(prob)) + "</td>";
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

std::string device_section(const DeviceSummary& ds, size_t index,
                           const std::optional<db::Problem>& requested) {
  std::string out = "<section class=\"device\" id=\"device-" + std::to_string(index) + "\">\n";
  out += "<h2>" + h(ds.device.name) + "</h2>\n";
  out += "<h3>Device fingerprint</h3>\n" + fingerprint_table(ds.device);
  out += "<h3>Winners</h3>\n" + problem_table(ds);
  out += "<h3>Speedup over fixed routing</h3>\n" + geomean_table(ds);
  out += "<h3>Variants by status</h3>\n" + status_table(ds.status_counts);
  out += "<h3>Charts</h3>\n";
  out += figure("Median time: tuned winner vs fixed routing vs naive",
                render_bar_chart(times_chart(ds)), "chart-times");
  out += figure("Achieved bandwidth of the winner vs measured copy bandwidth",
                render_bar_chart(bandwidth_chart(ds)), "chart-bandwidth");
  if (const ProblemSummary* hp = heatmap_problem(ds, requested)) {
    out +=
        figure("q4gsw_tiled TM x TN, best time over the other knobs: " + problem_label(hp->problem),
               render_heatmap(*hp), "chart-heatmap");
    out += figure("Fastest variant per family: " + problem_label(hp->problem),
                  render_bar_chart(family_chart(*hp)), "chart-family");
  } else {
    out += "<p class=\"note\">No q4gsw_tiled results" +
           (requested ? " for " + h(problem_label(*requested)) : std::string()) +
           " on this device: no heat map.</p>\n";
  }
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
    if (p.problem.op != "q4gsw") continue;
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
      throw std::invalid_argument("--heatmap-problem \"" + problem_label(*options.heatmap_problem) +
                                  "\" was not measured on any device in the database");
    }
  }
  const std::string when = options.generated_at.empty() ? db::utc_now() : options.generated_at;
  std::string out =
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      "<title>vktune report: " +
      h(summary.source) + "</title>\n<style>" + kStyle + "</style>\n</head>\n<body>\n";
  out += "<h1>vktune tuning report</h1>\n";
  out += "<p class=\"meta\">Database <code>" + h(summary.source) + "</code>, " +
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
      "\"?\": no run recorded coverage (a database from before schema v3).</p>\n";
  out += "<h2>Runs</h2>\n" + runs_table(summary);
  if (summary.devices.size() > 1) {
    out += "<h2>Device by device</h2>\n" + device_matrix(summary);
  }
  if (summary.devices.empty()) out += "<p class=\"note\">The database holds no devices.</p>\n";
  for (size_t i = 0; i < summary.devices.size(); ++i) {
    out += device_section(summary.devices[i], i, options.heatmap_problem);
  }
  out += "</body>\n</html>\n";
  return out;
}

}  // namespace vktune::report
