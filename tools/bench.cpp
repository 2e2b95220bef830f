// Picking what `vktune bench` measures from a tuned database.
#include "tools/bench.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "kernels/family.h"
#include "tools/report/summary.h"
#include "tuner/records.h"

namespace vktune::cli {
namespace {

const db::DeviceRecord* find_device(const std::vector<db::DeviceRecord>& devices,
                                    const vk::DeviceInfo& info) {
  const db::DeviceRecord want = tuner::device_record(info);
  const db::DeviceRecord* same_model = nullptr;
  for (const db::DeviceRecord& d : devices) {
    if (d.vendor_id == want.vendor_id && d.device_id == want.device_id &&
        d.driver_version == want.driver_version &&
        d.pipeline_cache_uuid == want.pipeline_cache_uuid) {
      return &d;
    }
    if (d.vendor_id == want.vendor_id && d.device_id == want.device_id) same_model = &d;
  }
  return same_model;
}

}  // namespace

BenchPlan plan_bench(const db::Store& tuned, const vk::DeviceInfo& device) {
  const auto devices = tuned.devices();
  const db::DeviceRecord* record = find_device(devices, device);
  if (record == nullptr) {
    throw std::invalid_argument(tuned.label() + " has no results for " + device.name);
  }
  std::map<int64_t, db::KernelRecord> kernels;
  for (db::KernelRecord& k : tuned.kernels()) kernels.emplace(k.id, std::move(k));
  std::map<int64_t, db::Problem> problems;
  for (db::Problem& p : tuned.problems()) problems.emplace(p.id, std::move(p));
  // Fastest naive variant per problem, from the tuning run.
  std::map<int64_t, std::pair<double, std::string>> naive;
  db::MeasurementFilter filter;
  filter.device_id = record->id;
  filter.status = db::Status::ok;
  for (const db::Measurement& m : tuned.measurements(filter)) {
    const db::KernelRecord& k = kernels.at(m.kernel_id);
    if (!kernels::is_baseline(k.family) || !m.median_ns) continue;
    auto [it, inserted] = naive.emplace(m.problem_id, std::pair{*m.median_ns, k.variant_key});
    if (!inserted && *m.median_ns < it->second.first) it->second = {*m.median_ns, k.variant_key};
  }
  const std::vector<db::BestRow> winners = tuned.best(record->id);
  auto same_space = [](const db::Problem& a, const db::Problem& b) {
    // sdpa: the head counts too (qpg must divide the group, so a winner may not carry over).
    return a.op == b.op && a.dtype == b.dtype && a.n == b.n && a.k == b.k &&
           a.heads == b.heads && a.kv_heads == b.kv_heads;
  };
  BenchPlan plan;
  for (const db::BestRow& best : winners) {
    const db::Problem& p = problems.at(best.problem_id);
    const auto problem = kernels::problem_of(p);
    if (!problem) continue;
    plan.problems.push_back(*problem);
    const std::string& winner = kernels.at(best.kernel_id).variant_key;
    std::vector<std::string> keys = {winner, report::fixed_routing_key(p)};
    if (auto it = naive.find(p.id); it != naive.end()) keys.push_back(it->second.second);
    std::vector<std::string> neighbours;
    for (const db::BestRow& other : winners) {
      const std::string& key = kernels.at(other.kernel_id).variant_key;
      if (other.problem_id == p.id || key == winner ||
          !same_space(problems.at(other.problem_id), p) ||
          std::find(neighbours.begin(), neighbours.end(), key) != neighbours.end()) {
        continue;
      }
      neighbours.push_back(key);
      keys.push_back(key);
    }
    plan.keys.push_back(std::move(keys));
    plan.stored_ns.push_back(best.median_ns);
    plan.neighbours.push_back(std::move(neighbours));
  }
  if (plan.problems.empty()) {
    throw std::invalid_argument(tuned.label() + " has no winners for " + device.name);
  }
  return plan;
}

std::vector<BenchCheck> check_bench(const BenchPlan& plan, const db::Store& measured) {
  std::map<int64_t, std::string> keys;
  for (const db::KernelRecord& k : measured.kernels()) keys.emplace(k.id, k.variant_key);
  // Keyed by the problem's description: one per (op, dtype, M, N, K, group size).
  std::map<std::pair<std::string, std::string>, double> times;
  std::map<int64_t, std::string> problems;
  for (const db::Problem& p : measured.problems()) {
    if (const auto problem = kernels::problem_of(p)) {
      problems.emplace(p.id, kernels::describe(*problem));
    }
  }
  db::MeasurementFilter filter;
  filter.status = db::Status::ok;
  for (const db::Measurement& m : measured.measurements(filter)) {
    if (m.median_ns && problems.count(m.problem_id)) {
      times[{problems.at(m.problem_id), keys.at(m.kernel_id)}] = *m.median_ns;
    }
  }
  std::vector<BenchCheck> checks;
  for (size_t i = 0; i < plan.problems.size(); ++i) {
    BenchCheck c;
    c.problem = plan.problems[i];
    c.winner = plan.keys[i].front();
    c.stored_ns = plan.stored_ns[i];
    const std::string problem = kernels::describe(c.problem);
    if (auto it = times.find({problem, c.winner}); it != times.end()) c.retimed_ns = it->second;
    for (const std::string& key : plan.neighbours[i]) {
      const auto it = times.find({problem, key});
      if (it == times.end() || (c.neighbour_ns && *c.neighbour_ns <= it->second)) continue;
      c.best_neighbour = key;
      c.neighbour_ns = it->second;
    }
    checks.push_back(std::move(c));
  }
  return checks;
}

std::string checks_json(const std::vector<BenchCheck>& checks) {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  auto or_null = [](const std::optional<double>& v) {
    return v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json(nullptr);
  };
  for (const BenchCheck& c : checks) {
    list.push_back({{"problem", kernels::describe(c.problem)},
                    {"winner", c.winner},
                    {"stored_ns", c.stored_ns},
                    {"retimed_ns", or_null(c.retimed_ns)},
                    {"best_neighbour", c.best_neighbour.empty() ? nlohmann::ordered_json(nullptr)
                                                                : nlohmann::ordered_json(c.best_neighbour)},
                    {"neighbour_ns", or_null(c.neighbour_ns)}});
  }
  const nlohmann::ordered_json doc = {{"format", "vktune-bench"}, {"checks", std::move(list)}};
  return doc.dump() + "\n";
}

std::string render_checks(const std::vector<BenchCheck>& checks, double retime_tolerance,
                          double neighbour_margin) {
  std::string text =
      "problem                              stored us  re-timed us   diff  best neighbour us  "
      "neighbour gain\n";
  size_t off = 0, beaten = 0, missing = 0;
  char line[256];
  for (const BenchCheck& c : checks) {
    if (!c.retimed_ns) {
      ++missing;
      std::snprintf(line, sizeof line, "%-36s %10.2f  not re-timed\n",
                    kernels::describe(c.problem).c_str(), c.stored_ns / 1e3);
      text += line;
      continue;
    }
    const double diff = *c.retimed_ns / c.stored_ns - 1;
    const double gain = c.neighbour_ns ? *c.retimed_ns / *c.neighbour_ns - 1 : 0;
    off += std::abs(diff) > retime_tolerance;
    beaten += gain > neighbour_margin;
    std::snprintf(line, sizeof line, "%-36s %10.2f %12.2f %+6.1f%% %18s %+8.1f%%%s\n",
                  kernels::describe(c.problem).c_str(), c.stored_ns / 1e3, *c.retimed_ns / 1e3,
                  100 * diff,
                  c.neighbour_ns ? std::to_string(*c.neighbour_ns / 1e3).substr(0, 9).c_str() : "-",
                  100 * gain,
                  std::abs(diff) > retime_tolerance || gain > neighbour_margin ? "  <--" : "");
    text += line;
  }
  std::snprintf(line, sizeof line,
                "\n%zu problems: %zu re-timed more than %.0f%% off their stored time, %zu beaten "
                "by a neighbour's winner by more than %.0f%%, %zu not re-timed\n",
                checks.size(), off, 100 * retime_tolerance, beaten, 100 * neighbour_margin,
                missing);
  return text + line;
}

void keep_only(BenchPlan& plan, const std::vector<kernels::Problem>& wanted) {
  BenchPlan kept;
  for (size_t i = 0; i < plan.problems.size(); ++i) {
    if (std::find(wanted.begin(), wanted.end(), plan.problems[i]) == wanted.end()) continue;
    kept.problems.push_back(plan.problems[i]);
    kept.keys.push_back(std::move(plan.keys[i]));
    kept.stored_ns.push_back(plan.stored_ns[i]);
    kept.neighbours.push_back(std::move(plan.neighbours[i]));
  }
  if (kept.problems.empty()) {
    throw std::invalid_argument("none of the shapes asked for has a winner in the database");
  }
  plan = std::move(kept);
}

}  // namespace vktune::cli
