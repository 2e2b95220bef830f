// render_summary_json: nlohmann's ordered_json, so keys keep the documented order.
#include "tools/report/summary_json.h"

#include <nlohmann/json.hpp>

#include "tools/report/anomalies.h"

namespace vktune::report {
namespace {

using Json = nlohmann::ordered_json;

template <typename T>
Json or_null(const std::optional<T>& v) {
  return v ? Json(*v) : Json(nullptr);
}

Json problem_json(const ProblemSummary& p, const std::vector<std::string>& flags) {
  const bool won = !p.winner_key.empty();
  return {{"op", p.problem.op},
          {"dtype", p.problem.dtype},
          {"m", p.problem.m},
          {"n", p.problem.n},
          {"k", p.problem.k},
          {"group_size", p.problem.group_size},
          {"winner", won ? Json(p.winner_key) : Json(nullptr)},
          {"family", won ? Json(p.winner_family) : Json(nullptr)},
          {"median_ns", won ? Json(p.median_ns) : Json(nullptr)},
          {"p10_ns", or_null(p.p10_ns)},
          {"p90_ns", or_null(p.p90_ns)},
          {"runner_up", p.runner_up_key.empty() ? Json(nullptr) : Json(p.runner_up_key)},
          {"runner_up_ns", or_null(p.runner_up_ns)},
          {"gbps", or_null(p.gbps)},
          {"gflops", or_null(p.gflops)},
          {"x_naive", or_null(p.speedup_naive)},
          {"x_fixed", or_null(p.speedup_fixed)},
          {"measured", p.measured()},
          {"legal", p.coverage ? Json(p.coverage->legal) : Json(nullptr)},
          {"cut", or_null(p.cut())},
          {"searched", p.searched()},
          {"flags", flags}};
}

}  // namespace

std::string render_summary_json(const Summary& summary) {
  Json devices = Json::array();
  for (const DeviceSummary& ds : summary.devices) {
    std::vector<std::vector<std::string>> flags(ds.problems.size());
    for (const Anomaly& a : find_anomalies(ds)) flags[a.problem].push_back(a.text);
    Json geomeans = Json::object();
    for (const Geomean& g : ds.geomean_fixed) geomeans[g.label] = or_null(g.speedup);
    Json problems = Json::array();
    for (size_t i = 0; i < ds.problems.size(); ++i)
      problems.push_back(problem_json(ds.problems[i], flags[i]));
    devices.push_back({{"name", ds.device.name},
                       {"vendor_id", ds.device.vendor_id},
                       {"device_id", ds.device.device_id},
                       {"driver", ds.device.driver_version_text},
                       {"copy_bandwidth_gbps", or_null(ds.device.copy_bandwidth_gbps)},
                       {"geomean_x_fixed", std::move(geomeans)},
                       {"problems", std::move(problems)}});
  }
  const Json doc = {{"format", "vktune-summary"},
                    {"version", 1},
                    {"source", summary.source},
                    {"devices", std::move(devices)}};
  return doc.dump() + "\n";
}

}  // namespace vktune::report
