// summarize(): one pass over the store, joined in memory (the store is small: thousands of
// measurements), and the plain-text table renderer.
#include "tools/report/summary.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <stdexcept>
#include <unordered_map>

#include "kernels/family.h"
#include "kernels/op.h"
#include "runtime/builtin.h"

namespace vktune::report {
namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool all_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::vector<db::DeviceRecord> select_devices(const std::vector<db::DeviceRecord>& all,
                                             const std::string& request) {
  if (request.empty()) return all;
  std::vector<db::DeviceRecord> out;
  for (const auto& d : all) {
    if (all_digits(request) ? std::to_string(d.id) == request
                            : lower(d.name).find(lower(request)) != std::string::npos) {
      out.push_back(d);
    }
  }
  if (out.empty()) {
    std::string msg = "--device \"" + request + "\" matches no device in the database; it holds:";
    if (all.empty()) msg += " (no devices)";
    for (const auto& d : all) msg += "\n  " + std::to_string(d.id) + ": " + d.name;
    throw std::invalid_argument(msg);
  }
  return out;
}


// tm/tn of a q4gsw_tiled variant, from its knobs; nullopt when absent or malformed.
std::optional<std::pair<uint32_t, uint32_t>> tile_of(const db::KernelRecord& k) {
  const auto j = nlohmann::json::parse(k.knobs_json, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object() || !j.contains("tm") || !j.contains("tn")) return std::nullopt;
  if (!j["tm"].is_number_unsigned() || !j["tn"].is_number_unsigned()) return std::nullopt;
  return std::make_pair(j["tm"].get<uint32_t>(), j["tn"].get<uint32_t>());
}

bool problem_less(const db::Problem& a, const db::Problem& b) {
  return std::tie(a.op, a.dtype, a.m, a.n, a.k, a.group_size) <
         std::tie(b.op, b.dtype, b.m, b.n, b.k, b.group_size);
}

// Everything measured for one (device, problem), already split by kernel.
struct ProblemData {
  std::vector<const db::Measurement*> rows;
};

ProblemSummary summarize_problem(
    const db::Problem& problem, const db::DeviceRecord& device, const db::BestRow* best,
    const ProblemData& data, const std::unordered_map<int64_t, const db::KernelRecord*>& kernels) {
  ProblemSummary ps;
  ps.problem = problem;
  ps.fixed_key = fixed_routing_key(problem);

  // Kernel rows found wrong in any run: the `best` view never picks them.
  std::set<int64_t> wrong_kernels;
  for (const db::Measurement* m : data.rows) {
    if (m->status == db::Status::wrong_result) wrong_kernels.insert(m->kernel_id);
  }
  // Per variant, its latest measurement and its fastest ok one from a kernel row never found
  // wrong. Grouped by key, not by kernel row: a key gets a new kernel row whenever its shader's
  // source changed between runs, and it is still one variant of the search space (whose
  // latest shader decides whether it is wrong).
  struct PerVariant {
    const db::KernelRecord* kernel = nullptr;
    const db::Measurement* latest = nullptr;
    const db::Measurement* fastest = nullptr;
  };
  std::map<std::string_view, PerVariant> per_variant;
  for (const db::Measurement* m : data.rows) {
    const auto it = kernels.find(m->kernel_id);
    if (it == kernels.end()) continue;
    PerVariant& pv = per_variant[it->second->variant_key];
    if (!pv.latest || std::tie(m->run_id, m->id) > std::tie(pv.latest->run_id, pv.latest->id)) {
      pv.latest = m;
      pv.kernel = it->second;
    }
    if (m->status == db::Status::ok && m->median_ns && !wrong_kernels.contains(m->kernel_id) &&
        (!pv.fastest || *m->median_ns < *pv.fastest->median_ns)) {
      pv.fastest = m;
    }
  }

  std::map<std::string, FamilyBest> families;
  std::map<std::pair<uint32_t, uint32_t>, TileCell> tiles;
  for (const auto& [key, pv] : per_variant) {
    const bool wrong = wrong_kernels.contains(pv.latest->kernel_id);
    const db::Status status = wrong ? db::Status::wrong_result : pv.latest->status;
    ps.status_counts.by_status[static_cast<size_t>(status)] += 1;
    if (wrong || !pv.fastest) continue;
    const db::KernelRecord& k = *pv.kernel;
    const double ns = *pv.fastest->median_ns;
    ps.ok_ns[k.variant_key] = ns;

    auto [fam, inserted] = families.try_emplace(k.family);
    if (inserted || ns < fam->second.median_ns) {
      fam->second = {k.family, k.variant_key, ns, pv.fastest->gbps, pv.fastest->gflops};
    }
    if (kernels::is_baseline(k.family) && (!ps.naive_ns || ns < *ps.naive_ns)) {
      ps.naive_ns = ns;
      ps.naive_key = k.variant_key;
    }
    if (!ps.fixed_key.empty() && k.variant_key == ps.fixed_key &&
        (!ps.fixed_ns || ns < *ps.fixed_ns)) {
      ps.fixed_ns = ns;
    }
    if (k.family == "q4gsw_tiled") {
      if (const auto tile = tile_of(k)) {
        auto [cell, fresh] = tiles.try_emplace(*tile);
        if (fresh || ns < cell->second.median_ns)
          cell->second = {tile->first, tile->second, ns, k.variant_key};
      }
    }
  }
  for (auto& [name, fb] : families) ps.family_best.push_back(std::move(fb));
  std::sort(ps.family_best.begin(), ps.family_best.end(),
            [](const FamilyBest& a, const FamilyBest& b) { return a.median_ns < b.median_ns; });
  for (auto& [key, cell] : tiles) ps.tiles.push_back(std::move(cell));

  if (best) {
    ps.median_ns = best->median_ns;
    if (const auto it = kernels.find(best->kernel_id); it != kernels.end()) {
      ps.winner_key = it->second->variant_key;
      ps.winner_family = it->second->family;
    }
    for (const db::Measurement* m : data.rows) {
      if (m->id == best->measurement_id) {
        ps.gbps = m->gbps;
        ps.gflops = m->gflops;
        ps.p10_ns = m->p10_ns;
        ps.p90_ns = m->p90_ns;
      }
    }
    for (const auto& [key, ns] : ps.ok_ns) {
      if (key != ps.winner_key && (!ps.runner_up_ns || ns < *ps.runner_up_ns)) {
        ps.runner_up_key = key;
        ps.runner_up_ns = ns;
      }
    }
    if (ps.gbps && device.copy_bandwidth_gbps && *device.copy_bandwidth_gbps > 0) {
      ps.pct_bandwidth = *ps.gbps / *device.copy_bandwidth_gbps * 100.0;
    }
    if (ps.naive_ns && ps.median_ns > 0) ps.speedup_naive = *ps.naive_ns / ps.median_ns;
    if (ps.fixed_ns && ps.median_ns > 0) ps.speedup_fixed = *ps.fixed_ns / ps.median_ns;
  }
  return ps;
}

// The latest run's coverage record per (device, problem). Runs are ranked by (started_at, id)
// as in the `best` view, so a merged database, whose row ids follow the merge order, still
// picks the newest run's record.
std::map<std::pair<int64_t, int64_t>, db::Coverage> latest_coverage(
    std::vector<db::Coverage> rows, const std::vector<db::RunRecord>& runs) {
  std::unordered_map<int64_t, const std::string*> started;
  for (const auto& r : runs) started[r.id] = &r.started_at;
  std::sort(rows.begin(), rows.end(), [&](const db::Coverage& a, const db::Coverage& b) {
    return std::tie(*started.at(a.run_id), a.run_id) < std::tie(*started.at(b.run_id), b.run_id);
  });
  std::map<std::pair<int64_t, int64_t>, db::Coverage> out;
  for (auto& c : rows) out[{c.device_id, c.problem_id}] = std::move(c);
  return out;
}

std::vector<Geomean> geomeans(const std::vector<ProblemSummary>& problems) {
  std::array<std::vector<double>, kMClassLabels.size()> per_class;
  std::vector<double> all;
  for (const auto& p : problems) {
    if (!p.speedup_fixed) continue;
    all.push_back(*p.speedup_fixed);
    if (by_m_class(p.problem)) per_class[m_class(p.problem.m)].push_back(*p.speedup_fixed);
  }
  std::vector<Geomean> out;
  for (size_t i = 0; i < kMClassLabels.size(); ++i) {
    out.push_back({std::string(kMClassLabels[i]), static_cast<int64_t>(per_class[i].size()),
                   geometric_mean(per_class[i])});
  }
  out.push_back({"all", static_cast<int64_t>(all.size()), geometric_mean(all)});
  return out;
}

}  // namespace

int64_t StatusCounts::total() const noexcept {
  int64_t t = 0;
  for (int64_t v : by_status) t += v;
  return t;
}

StatusCounts& StatusCounts::operator+=(const StatusCounts& other) noexcept {
  for (size_t i = 0; i < by_status.size(); ++i) by_status[i] += other.by_status[i];
  return *this;
}

std::optional<bool> ProblemSummary::cut() const noexcept {
  if (!coverage) return std::nullopt;
  return coverage->budget_cut || (measured() < coverage->legal && !searched_by_design);
}

bool ProblemSummary::searched() const noexcept {
  return coverage && !*cut() && measured() < coverage->legal;
}

std::optional<double> ProblemSummary::spread_pct() const noexcept {
  if (!p10_ns || !p90_ns || median_ns <= 0) return std::nullopt;
  return (*p90_ns - *p10_ns) / median_ns * 100.0;
}

std::optional<double> ProblemSummary::margin_pct() const noexcept {
  if (!runner_up_ns || median_ns <= 0) return std::nullopt;
  return (*runner_up_ns / median_ns - 1.0) * 100.0;
}

size_t m_class(uint32_t m) noexcept {
  if (m <= 1) return 0;
  if (m <= 8) return 1;
  if (m <= 64) return 2;
  return 3;
}

std::optional<double> geometric_mean(const std::vector<double>& values) {
  if (values.empty()) return std::nullopt;
  double log_sum = 0;
  for (double v : values) log_sum += std::log(v);
  return std::exp(log_sum / static_cast<double>(values.size()));
}

Summary summarize(const db::Store& store, const SummaryOptions& options) {
  Summary summary;
  // The file name only: where the database sat when the report was made is nobody's business.
  summary.source = std::filesystem::path(store.label()).filename().string();
  const std::vector<db::DeviceRecord> devices = select_devices(store.devices(), options.device);
  const std::vector<db::KernelRecord> kernel_rows = store.kernels();
  const std::vector<db::Problem> problem_rows = store.problems();
  std::unordered_map<int64_t, const db::KernelRecord*> kernels;
  for (const auto& k : kernel_rows) kernels[k.id] = &k;
  std::unordered_map<int64_t, const db::Problem*> problems;
  for (const auto& p : problem_rows) problems[p.id] = &p;
  std::vector<db::RunRecord> runs = store.runs();
  std::vector<db::Coverage> coverage_rows = store.coverage();
  std::set<std::pair<int64_t, int64_t>> in_run;  // (device, problem) pairs options.runs covered
  std::set<int64_t> devices_in_run;
  const std::set<int64_t> wanted_runs(options.runs.begin(), options.runs.end());
  for (const db::Coverage& c : coverage_rows) {
    if (!wanted_runs.count(c.run_id)) continue;
    in_run.emplace(c.device_id, c.problem_id);
    devices_in_run.insert(c.device_id);
  }
  const auto coverage = latest_coverage(std::move(coverage_rows), runs);
  std::unordered_map<int64_t, std::string> strategy_of;
  for (const db::RunRecord& r : runs) strategy_of[r.id] = r.strategy;

  std::set<int64_t> run_ids;
  for (const db::DeviceRecord& device : devices) {
    if (!wanted_runs.empty() && !devices_in_run.count(device.id)) continue;
    db::MeasurementFilter filter;
    filter.device_id = device.id;
    const std::vector<db::Measurement> rows = store.measurements(filter);
    const std::vector<db::BestRow> best = store.best(device.id);

    std::map<int64_t, ProblemData> by_problem;
    for (const auto& m : rows) {
      by_problem[m.problem_id].rows.push_back(&m);
      run_ids.insert(m.run_id);
    }
    // A problem the budget cut before its first result is listed too, as "0/N cut".
    for (const auto& [key, c] : coverage) {
      if (key.first == device.id) by_problem[key.second];
    }
    std::unordered_map<int64_t, const db::BestRow*> best_of;
    for (const auto& b : best) best_of[b.problem_id] = &b;

    DeviceSummary ds;
    ds.device = device;
    for (const auto& [problem_id, data] : by_problem) {
      const auto p = problems.find(problem_id);
      if (p == problems.end()) continue;
      if (!wanted_runs.empty() && !in_run.count({device.id, problem_id})) continue;
      const auto b = best_of.find(problem_id);
      ds.problems.push_back(summarize_problem(
          *p->second, device, b == best_of.end() ? nullptr : b->second, data, kernels));
      ds.status_counts += ds.problems.back().status_counts;
      if (const auto c = coverage.find({device.id, problem_id}); c != coverage.end()) {
        ds.problems.back().coverage = c->second;
        const std::string& strategy = strategy_of.at(c->second.run_id);
        ds.problems.back().searched_by_design = strategy == "model" || strategy == "halving";
      }
    }
    std::sort(ds.problems.begin(), ds.problems.end(),
              [](const ProblemSummary& a, const ProblemSummary& b) {
                return problem_less(a.problem, b.problem);
              });
    ds.geomean_fixed = geomeans(ds.problems);
    summary.devices.push_back(std::move(ds));
  }
  for (auto& r : runs) {
    if (run_ids.count(r.id)) summary.runs.push_back(std::move(r));
  }
  return summary;
}

bool by_m_class(const db::Problem& p) noexcept {
  const kernels::OpDescriptor* op = kernels::find_op(p.op);
  return op != nullptr && op->speedup_by_m_class;
}

std::string format_number(std::optional<double> value, int decimals) {
  if (!value || !std::isfinite(*value)) return "-";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, *value);
  return buf;
}

std::string format_speedup(std::optional<double> value) {
  if (!value || !std::isfinite(*value)) return "-";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.2fx", *value);
  return buf;
}

std::string format_coverage(const ProblemSummary& p) {
  std::string s = std::to_string(p.measured()) + "/";
  if (!p.coverage) return s + "?";
  return s + std::to_string(p.coverage->legal) + (*p.cut() ? " cut" : p.searched() ? " searched" : "");
}

std::string format_stages(const ProblemSummary& p) {
  std::string s;
  if (!p.coverage) return s;
  for (uint32_t n : p.coverage->stages) {
    if (!s.empty()) s += '>';
    s += std::to_string(n);
  }
  return s;
}

std::string render_table(const Summary& summary) {
  static const char* kHeader[] = {"problem", "winner",  "time us", "GB/s",    "%BW",
                                  "GFLOP/s", "x naive", "x fixed", "coverage"};
  constexpr size_t kCols = std::size(kHeader);
  std::string out;
  for (const DeviceSummary& ds : summary.devices) {
    out += ds.device.name + " (vendor 0x";
    char hex[32];
    std::snprintf(hex, sizeof hex, "%04x, device 0x%04x", ds.device.vendor_id, ds.device.device_id);
    out += hex;
    out += ", driver " + ds.device.driver_version_text + ", copy bandwidth " +
           (ds.device.copy_bandwidth_gbps
                ? format_number(ds.device.copy_bandwidth_gbps, 1) + " GB/s)\n"
                : std::string("not measured)\n"));
    std::vector<std::array<std::string, kCols>> rows;
    rows.push_back({});
    for (size_t c = 0; c < kCols; ++c) rows.back()[c] = kHeader[c];
    for (const ProblemSummary& p : ds.problems) {
      rows.push_back({db::ops::problem_label(p.problem),
                      p.winner_key.empty() ? "(no ok variant)" : p.winner_key,
                      p.winner_key.empty() ? "-" : format_number(p.median_ns / 1000.0, 2),
                      format_number(p.gbps, 1), format_number(p.pct_bandwidth, 1),
                      format_number(p.gflops, 1), format_speedup(p.speedup_naive),
                      format_speedup(p.speedup_fixed), format_coverage(p)});
    }
    std::array<size_t, kCols> width{};
    for (const auto& r : rows) {
      for (size_t c = 0; c < kCols; ++c) width[c] = std::max(width[c], r[c].size());
    }
    for (size_t i = 0; i < rows.size(); ++i) {
      std::string line = " ";
      for (size_t c = 0; c < kCols; ++c) {
        const std::string& cell = rows[i][c];
        const std::string pad(width[c] - cell.size(), ' ');
        line += " ";
        line += c < 2 ? cell + pad : pad + cell;  // text left, numbers right
      }
      while (!line.empty() && line.back() == ' ') line.pop_back();
      out.append(line).append("\n");
      if (i == 0) {
        std::string rule = " ";
        for (size_t c = 0; c < kCols; ++c) rule.append(" ").append(width[c], '-');
        out.append(rule).append("\n");
      }
    }
    out += "  geomean speedup over fixed routing:";
    for (const Geomean& g : ds.geomean_fixed) {
      out += (g.label == "all" ? " all: " : " M " + g.label + ": ") + format_speedup(g.speedup) +
             " (n=" + std::to_string(g.count) + ")";
      if (&g != &ds.geomean_fixed.back()) out += ",";
    }
    out += "\n\n";
  }
  if (summary.devices.empty()) out += "(the database holds no devices)\n";
  return out;
}

std::string fixed_routing_key(const db::Problem& p) {
  return std::string(
      runtime::builtin_key({p.op, p.dtype, p.m, p.n, p.k, p.group_size, p.heads, p.kv_heads}));
}

}  // namespace vktune::report
