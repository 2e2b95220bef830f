// Markdown and CSV renderers.
#include "tools/report/tables.h"

#include <cstdio>
#include <stdexcept>

namespace vktune::report {
namespace {

constexpr db::Status kStatuses[] = {
    db::Status::ok,          db::Status::wrong_result, db::Status::compile_error,
    db::Status::unsupported, db::Status::timeout,      db::Status::device_lost};

// Full precision for CSV: a reader gets back the stored double.
std::string exact(std::optional<double> v) {
  if (!v) return {};
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", *v);
  return buf;
}

std::string hex4(uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%04x", v);
  return buf;
}

std::string md_cell(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '|') {
      out += "\\|";
    } else if (c == '\n' || c == '\r') {
      out += ' ';
    } else {
      out += c;
    }
  }
  return out;
}

std::string status_text(const StatusCounts& c) {
  std::string s;
  for (db::Status st : kStatuses) {
    if (c[st] == 0) continue;
    if (!s.empty()) s += ", ";
    s += std::string(db::to_string(st)) + " " + std::to_string(c[st]);
  }
  return s.empty() ? "none" : s;
}

}  // namespace

std::string render_markdown(const Summary& summary) {
  std::string out = "# vktune tuning report\n\nDatabase: `" + md_cell(summary.source) + "`\n\n";
  for (const DeviceSummary& ds : summary.devices) {
    const db::DeviceRecord& d = ds.device;
    out += "## " + md_cell(d.name) + "\n\n";
    out += "vendor " + hex4(d.vendor_id) + ", device " + hex4(d.device_id) + ", " + d.device_type +
           ", driver " + md_cell(d.driver_version_text) + " (id " + std::to_string(d.driver_id) +
           ", " + md_cell(d.driver_info) + "), pipelineCacheUUID `" + d.pipeline_cache_uuid +
           "`, subgroup " + std::to_string(d.subgroup_size) + ", copy bandwidth " +
           format_number(d.copy_bandwidth_gbps, 1) + " GB/s\n\n";
    out +=
        "| problem | winner | time us | GB/s | %BW | GFLOP/s | naive us | x naive | fixed us | "
        "x fixed | coverage | variants |\n";
    out += "|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|\n";
    for (const ProblemSummary& p : ds.problems) {
      const bool won = !p.winner_key.empty();
      std::string winner = "(no ok variant)";
      if (won) winner.assign("`").append(md_cell(p.winner_key)).append("`");
      out += "| " + md_cell(db::ops::problem_label(p.problem)) + " | " + winner + " | " +
             (won ? format_number(p.median_ns / 1000.0, 2) : "-") + " | " +
             format_number(p.gbps, 1) + " | " + format_number(p.pct_bandwidth, 1) + " | " +
             format_number(p.gflops, 1) + " | " +
             format_number(p.naive_ns ? std::optional(*p.naive_ns / 1000.0) : std::nullopt, 2) +
             " | " + format_speedup(p.speedup_naive) + " | " +
             format_number(p.fixed_ns ? std::optional(*p.fixed_ns / 1000.0) : std::nullopt, 2) +
             " | " + format_speedup(p.speedup_fixed) + " | " + format_coverage(p) + " | " +
             status_text(p.status_counts) + " |\n";
    }
    out += "\nGeometric-mean speedup of the tuned winner over fixed routing:\n\n";
    out += "| M class | problems | speedup |\n|---|--:|--:|\n";
    for (const Geomean& g : ds.geomean_fixed) {
      out += "| " + md_cell(g.label) + " | " + std::to_string(g.count) + " | " +
             format_speedup(g.speedup) + " |\n";
    }
    out += "\nVariants by status: " + status_text(ds.status_counts) + "\n\n";
  }
  if (summary.devices.empty()) out += "The database holds no devices.\n\n";
  out += "## Runs\n\n| run | started | ended | strategy | tool version | host | cache |\n";
  out += "|---|---|---|---|---|---|---|\n";
  for (const db::RunRecord& r : summary.runs) {
    out += "| `" + md_cell(r.uuid) + "` | " + md_cell(r.started_at) + " | " +
           md_cell(r.ended_at.value_or("(unfinished)")) + " | " + md_cell(r.strategy) + " | " +
           md_cell(r.tool_version) + " | " + md_cell(r.host) + " | " + md_cell(r.cache_mode) +
           " |\n";
  }
  return out;
}

const std::vector<std::string>& csv_columns() {
  static const std::vector<std::string> columns = {"device",
                                                   "vendor_id",
                                                   "device_id",
                                                   "driver_version",
                                                   "pipeline_cache_uuid",
                                                   "op",
                                                   "dtype",
                                                   "m",
                                                   "n",
                                                   "k",
                                                   "group_size",
                                                   "winner",
                                                   "winner_family",
                                                   "median_ns",
                                                   "gbps",
                                                   "pct_bandwidth",
                                                   "gflops",
                                                   "naive_variant",
                                                   "naive_ns",
                                                   "speedup_naive",
                                                   "fixed_variant",
                                                   "fixed_ns",
                                                   "speedup_fixed",
                                                   "ok",
                                                   "wrong_result",
                                                   "compile_error",
                                                   "unsupported",
                                                   "timeout",
                                                   "device_lost",
                                                   "legal",
                                                   "measured",
                                                   "budget_cut",
                                                   "stages"};
  return columns;
}

std::string csv_field(std::string_view text) {
  if (text.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(text);
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string render_csv(const Summary& summary) {
  std::string out;
  auto emit = [&out](const std::vector<std::string>& fields) {
    for (size_t i = 0; i < fields.size(); ++i) {
      if (i) out += ',';
      out += csv_field(fields[i]);
    }
    out += "\r\n";
  };
  emit(csv_columns());
  for (const DeviceSummary& ds : summary.devices) {
    const db::DeviceRecord& d = ds.device;
    for (const ProblemSummary& p : ds.problems) {
      const bool won = !p.winner_key.empty();
      std::vector<std::string> f = {d.name,
                                    hex4(d.vendor_id),
                                    hex4(d.device_id),
                                    d.driver_version_text,
                                    d.pipeline_cache_uuid,
                                    p.problem.op,
                                    p.problem.dtype,
                                    std::to_string(p.problem.m),
                                    std::to_string(p.problem.n),
                                    std::to_string(p.problem.k),
                                    std::to_string(p.problem.group_size),
                                    p.winner_key,
                                    p.winner_family,
                                    won ? exact(p.median_ns) : std::string(),
                                    exact(p.gbps),
                                    exact(p.pct_bandwidth),
                                    exact(p.gflops),
                                    p.naive_key.value_or(""),
                                    exact(p.naive_ns),
                                    exact(p.speedup_naive),
                                    p.fixed_key,
                                    exact(p.fixed_ns),
                                    exact(p.speedup_fixed)};
      for (db::Status st : kStatuses) f.push_back(std::to_string(p.status_counts[st]));
      const std::optional<bool> cut = p.cut();
      f.push_back(p.coverage ? std::to_string(p.coverage->legal) : std::string());
      f.push_back(std::to_string(p.measured()));
      f.push_back(cut ? (*cut ? "true" : "false") : "");
      f.push_back(format_stages(p));
      emit(f);
    }
  }
  return out;
}

std::vector<std::vector<std::string>> parse_csv(std::string_view text) {
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> row;
  std::string field;
  bool quoted = false, field_started = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        field += c;
      }
      continue;
    }
    if (c == '"') {
      quoted = true;
      field_started = true;
    } else if (c == ',') {
      row.push_back(std::move(field));
      field.clear();
      field_started = true;
    } else if (c == '\r' || c == '\n') {
      if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
      row.push_back(std::move(field));
      field.clear();
      rows.push_back(std::move(row));
      row.clear();
      field_started = false;
    } else {
      field += c;
      field_started = true;
    }
  }
  if (quoted) throw std::invalid_argument("CSV: unterminated quoted field");
  if (field_started || !row.empty()) {
    row.push_back(std::move(field));
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace vktune::report
