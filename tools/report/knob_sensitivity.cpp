// knob_sensitivity: log-slowdowns gathered per (family, knob, value), averaged at the end, so
// every problem weighs the same whatever its time.
#include "tools/report/knob_sensitivity.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "kernels/knobs.h"
#include "tools/report/html_cells.h"

namespace vktune::report {
namespace {

using kernels::KnobValue;

struct FamilyLogs {
  int64_t won = 0;
  std::vector<std::string> knob_order;  // as the keys list them: the family's declared order
  std::map<std::string, std::map<KnobValue, std::vector<double>>> logs;
};

// The fastest time of the family's variants for each (knob, value) on one problem.
std::map<std::string, std::map<KnobValue, double>> best_per_value(const ProblemSummary& p,
                                                                  FamilyLogs& family) {
  std::map<std::string, std::map<KnobValue, double>> best;
  for (const auto& [key, ns] : p.ok_ns) {
    kernels::ParsedKey parsed;
    try {
      parsed = kernels::parse_key(key);
    } catch (const kernels::BadKey&) {
      continue;
    }
    if (parsed.family != p.winner_family) continue;
    for (const auto& knob : parsed.knobs) {
      if (std::find(family.knob_order.begin(), family.knob_order.end(), knob.name) ==
          family.knob_order.end()) {
        family.knob_order.push_back(knob.name);
      }
      const auto [it, inserted] = best[knob.name].try_emplace(knob.value, ns);
      if (!inserted) it->second = std::min(it->second, ns);
    }
  }
  return best;
}

KnobSensitivity summarize_knob(const std::string& knob,
                               const std::map<KnobValue, std::vector<double>>& logs) {
  KnobSensitivity out{knob, {}, 1};
  double lo = INFINITY, hi = 0;
  for (const auto& [value, values] : logs) {
    double sum = 0;
    for (const double v : values) sum += v;
    const double g = std::exp(sum / static_cast<double>(values.size()));
    out.values.push_back({kernels::to_string(value), static_cast<int64_t>(values.size()), g});
    lo = std::min(lo, g);
    hi = std::max(hi, g);
  }
  if (!out.values.empty()) out.spread = hi / lo;
  return out;
}

}  // namespace

std::vector<FamilySensitivity> knob_sensitivity(const DeviceSummary& device) {
  std::map<std::string, FamilyLogs> families;
  for (const auto& p : device.problems) {
    if (p.winner_family.empty() || !(p.median_ns > 0)) continue;
    FamilyLogs& family = families[p.winner_family];
    ++family.won;
    for (const auto& [knob, values] : best_per_value(p, family)) {
      for (const auto& [value, ns] : values) {
        family.logs[knob][value].push_back(std::log(ns / p.median_ns));
      }
    }
  }
  std::vector<FamilySensitivity> out;
  for (const auto& [name, family] : families) {
    FamilySensitivity fs{name, family.won, {}};
    for (const auto& knob : family.knob_order) {
      fs.knobs.push_back(summarize_knob(knob, family.logs.at(knob)));
    }
    std::stable_sort(fs.knobs.begin(), fs.knobs.end(),
                     [](const auto& a, const auto& b) { return a.spread > b.spread; });
    out.push_back(std::move(fs));
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const auto& a, const auto& b) { return a.problems_won > b.problems_won; });
  return out;
}

std::string render_knob_sensitivity(const std::vector<FamilySensitivity>& families) {
  std::string out;
  for (const auto& family : families) {
    out += "<table class=\"knobs\"><caption>" + h(family.family) + ": won " +
           std::to_string(family.problems_won) +
           (family.problems_won == 1 ? " problem" : " problems") +
           "</caption>\n<tr><th>knob</th><th>spread</th><th>value: best time with it / "
           "winner's, geometric mean (problems)</th></tr>\n";
    for (const auto& knob : family.knobs) {
      out += "<tr><td>" + h(knob.knob) + "</td><td class=\"num\">" +
             format_number(knob.spread, 2) + "x</td><td>";
      for (const auto& v : knob.values) {
        // Within 2% of the winner is noise; 25% behind is a value the sweep must not miss.
        const char* cls = v.geomean_slowdown <= 1.02 ? "good" : (v.geomean_slowdown >= 1.25 ? "bad" : "");
        out += "<span class=\"knobval " + std::string(cls) + "\">" + h(v.value) + ": " +
               format_number(v.geomean_slowdown, 2) + "x (" + std::to_string(v.problems) +
               ")</span> ";
      }
      out += "</td></tr>\n";
    }
    out += "</table>\n";
  }
  return out;
}

}  // namespace vktune::report
