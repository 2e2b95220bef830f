// find_anomalies: problems grouped into series that differ only in M, then compared in order.
#include "tools/report/anomalies.h"

#include <algorithm>
#include <map>
#include <tuple>

namespace vktune::report {
namespace {

std::string us(double ns) { return format_number(ns / 1000.0, 2) + " us"; }

}  // namespace

std::vector<Anomaly> find_anomalies(const DeviceSummary& device) {
  using SeriesKey = std::tuple<std::string, std::string, uint32_t, uint32_t, uint32_t>;
  std::map<SeriesKey, std::vector<size_t>> series;
  for (size_t i = 0; i < device.problems.size(); ++i) {
    const db::Problem& p = device.problems[i].problem;
    if (device.problems[i].winner_key.empty()) continue;
    series[{p.op, p.dtype, p.n, p.k, p.group_size}].push_back(i);
  }
  std::vector<Anomaly> out;
  for (auto& [key, members] : series) {
    std::sort(members.begin(), members.end(), [&](size_t a, size_t b) {
      return device.problems[a].problem.m < device.problems[b].problem.m;
    });
    for (size_t at = 0; at < members.size(); ++at) {
      const ProblemSummary& p = device.problems[members[at]];
      // The fastest larger M: the strongest evidence against this time.
      const ProblemSummary* faster = nullptr;
      for (size_t j = at + 1; j < members.size(); ++j) {
        const ProblemSummary& q = device.problems[members[j]];
        if (q.median_ns < p.median_ns * (1.0 - kMonotonicTolerance) &&
            (!faster || q.median_ns < faster->median_ns)) {
          faster = &q;
        }
      }
      if (faster) {
        out.push_back({members[at], Anomaly::Kind::slower_than_larger_m,
                       "slower (" + us(p.median_ns) + ") than M=" +
                           std::to_string(faster->problem.m) + " (" + us(faster->median_ns) +
                           ")"});
      }
      if (!p.cut().value_or(true)) continue;
      for (const size_t j : {at - 1, at + 1}) {
        if (j >= members.size()) continue;  // at - 1 wraps for the first member
        const ProblemSummary& q = device.problems[members[j]];
        if (q.winner_key != p.winner_key && !p.ok_ns.count(q.winner_key)) {
          out.push_back({members[at], Anomaly::Kind::neighbour_winner_untried,
                         "M=" + std::to_string(q.problem.m) + "'s winner " + q.winner_key +
                             " has no result here"});
        }
      }
    }
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const Anomaly& a, const Anomaly& b) { return a.problem < b.problem; });
  return out;
}

}  // namespace vktune::report
