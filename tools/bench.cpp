// Picking what `vktune bench` measures from a tuned database.
#include "tools/bench.h"

#include <algorithm>
#include <map>
#include <stdexcept>

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
    if (k.family != "q4gsw_naive" || !m.median_ns) continue;
    auto [it, inserted] = naive.emplace(m.problem_id, std::pair{*m.median_ns, k.variant_key});
    if (!inserted && *m.median_ns < it->second.first) it->second = {*m.median_ns, k.variant_key};
  }
  BenchPlan plan;
  for (const db::BestRow& best : tuned.best(record->id)) {
    const db::Problem& p = problems.at(best.problem_id);
    const auto op = kernels::parse_op(p.op);
    if (!op) continue;
    plan.problems.push_back({*op, p.m, p.n, p.k, p.group_size, false});
    std::vector<std::string> keys = {kernels.at(best.kernel_id).variant_key, report::fixed_routing_key(p)};
    if (auto it = naive.find(p.id); it != naive.end()) keys.push_back(it->second.second);
    plan.keys.push_back(std::move(keys));
  }
  if (plan.problems.empty()) {
    throw std::invalid_argument(tuned.label() + " has no winners for " + device.name);
  }
  return plan;
}

void keep_only(BenchPlan& plan, const std::vector<kernels::Problem>& wanted) {
  BenchPlan kept;
  for (size_t i = 0; i < plan.problems.size(); ++i) {
    if (std::find(wanted.begin(), wanted.end(), plan.problems[i]) == wanted.end()) continue;
    kept.problems.push_back(plan.problems[i]);
    kept.keys.push_back(std::move(plan.keys[i]));
  }
  if (kept.problems.empty()) {
    throw std::invalid_argument("none of the shapes asked for has a winner in the database");
  }
  plan = std::move(kept);
}

}  // namespace vktune::cli
