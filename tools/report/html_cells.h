// Table cells every HTML view writes: escaped text, numbers right-aligned with their raw value
// in data-v (what the page's sort reads), speedups coloured good or bad.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "tools/report/summary.h"
#include "tools/report/svg.h"

namespace vktune::report {

inline std::string h(std::string_view s) { return escape_xml(s); }

// A numeric cell showing `text`; absent values carry no data-v, so they sort last.
inline std::string value_cell(std::optional<double> v, std::string_view text,
                              std::string_view cls = {}, std::string_view title = {}) {
  // Appended piece by piece: GCC 12 warns (-Wrestrict, a known false positive) on
  // "literal" + std::string here.
  std::string out = "<td class=\"num";
  if (!cls.empty()) (out += ' ') += cls;
  out += '"';
  if (v) ((out += " data-v=\"") += svg_num(*v)) += '"';
  if (!title.empty()) ((out += " title=\"") += h(title)) += '"';
  ((out += '>') += h(text)) += "</td>";
  return out;
}

inline std::string num_cell(std::optional<double> v, int decimals) {
  return value_cell(v, format_number(v, decimals));
}

inline std::string us_cell(std::optional<double> ns) {
  return num_cell(ns ? std::optional(*ns / 1000.0) : std::nullopt, 2);
}

inline std::string speedup_cell(std::optional<double> s) {
  const char* cls = !s ? "" : (*s >= 1.05 ? "good" : (*s < 0.995 ? "bad" : ""));
  return value_cell(s, format_speedup(s), cls);
}

}  // namespace vktune::report
