// render_problem_table and the script that sorts and filters it.
#include "tools/report/html_table.h"

#include "tools/report/html_cells.h"

namespace vktune::report {

const char* const kTableScript = R"js(
"use strict";
for (const table of document.querySelectorAll("table.sortable")) {
  const body = table.tBodies[0];
  table.tHead.querySelectorAll("th").forEach((th, col) => {
    th.addEventListener("click", () => {
      const down = th.getAttribute("aria-sort") === "ascending";
      table.tHead.querySelectorAll("th").forEach(o => o.removeAttribute("aria-sort"));
      th.setAttribute("aria-sort", down ? "descending" : "ascending");
      const num = th.classList.contains("num");
      const key = row => {
        const cell = row.cells[col];
        return num ? (cell.dataset.v === undefined ? null : Number(cell.dataset.v))
                   : cell.textContent;
      };
      const rows = Array.from(body.rows);
      rows.sort((a, b) => {
        const x = key(a), y = key(b);
        if (x === null || y === null) return (x === null) - (y === null);  // absent last
        const order = num ? x - y : x.localeCompare(y, undefined, {numeric: true});
        return down ? -order : order;
      });
      body.append(...rows);
    });
  });
  const box = document.getElementById(table.id + "-filter");
  const flagged = document.getElementById(table.id + "-flagged");
  const filter = () => {
    const words = box.value.toLowerCase().split(/\s+/).filter(w => w);
    for (const row of body.rows) {
      const text = row.textContent.toLowerCase();
      row.hidden = (flagged.checked && !("flagged" in row.dataset)) ||
                   !words.every(w => text.includes(w));
    }
  };
  box.addEventListener("input", filter);
  flagged.addEventListener("change", filter);
}
)js";

std::string render_problem_table(const DeviceSummary& device, size_t device_index,
                                 const std::vector<Anomaly>& anomalies) {
  const std::string id = "problems-" + std::to_string(device_index);
  std::string out = "<p class=\"filter\"><label>Filter <input type=\"search\" id=\"" + id +
                    "-filter\" placeholder=\"e.g. q4gsw N=4096 tiled\"></label> <label><input "
                    "type=\"checkbox\" id=\"" + id +
                    "-flagged\"> flagged only</label> (click a column to sort)</p>\n";
  out += "<div class=\"scroll\"><table class=\"sortable\" id=\"" + id +
         "\"><thead><tr><th>problem</th><th class=\"num\">M</th><th>family</th><th>winner knobs</th>"
         "<th class=\"num\">time us</th><th class=\"num\" title=\"(p90 - p10) / median of the "
         "winner's samples\">spread %</th><th class=\"num\" title=\"how much slower the "
         "runner-up is\">margin %</th><th class=\"num\">GB/s</th><th class=\"num\">%BW</th>"
         "<th class=\"num\">GFLOP/s</th><th class=\"num\">x naive</th><th class=\"num\">x "
         "fixed</th><th class=\"num\">coverage</th><th>flags</th></tr></thead><tbody>\n";
  auto a = anomalies.begin();
  for (size_t i = 0; i < device.problems.size(); ++i) {
    const ProblemSummary& p = device.problems[i];
    const bool won = !p.winner_key.empty();
    // An unfinished search's winner is provisional: the whole row is shaded.
    const bool cut = p.cut().value_or(false);
    std::string flags;
    if (cut) flags += "<span class=\"flag\">cut</span> ";
    for (; a != anomalies.end() && a->problem == i; ++a)
      flags += "<span class=\"flag\">" + h(a->text) + "</span> ";
    out +=
        std::string(cut ? "<tr class=\"cut\"" : "<tr") + " id=\"p-" + std::to_string(device_index) +
        "-" + std::to_string(i) + "\"" + (flags.empty() ? "" : " data-flagged") +
        "><td class=\"problem\">" + h(db::ops::problem_label(p.problem)) + "</td>" +
        num_cell(double(p.problem.m), 0) + "<td>" + h(p.winner_family) + "</td><td>" +
        (won ? "<code>" + h(p.winner_key.substr(p.winner_family.size())) + "</code>"
             : std::string("(no ok variant)")) +
        "</td>" + us_cell(won ? std::optional(p.median_ns) : std::nullopt) +
        num_cell(p.spread_pct(), 1) +
        value_cell(p.margin_pct(), format_number(p.margin_pct(), 1), "",
                   p.runner_up_key.empty()
                       ? std::string()
                       : "runner-up " + p.runner_up_key + ": " +
                             format_number(*p.runner_up_ns / 1000.0, 2) + " us") +
        num_cell(p.gbps, 1) + num_cell(p.pct_bandwidth, 1) + num_cell(p.gflops, 1) +
        speedup_cell(p.speedup_naive) + speedup_cell(p.speedup_fixed) +
        value_cell(double(p.measured()), format_coverage(p), cut ? "bad" : "", format_stages(p)) +
        "<td>" + flags + "</td></tr>\n";
  }
  return out + "</tbody></table></div>\n";
}

}  // namespace vktune::report
