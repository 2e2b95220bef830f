// Leave-one-problem-out over a database, through the runtime's own Snapshot::select.
#include "db/ops/evaluate.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <tuple>
#include <unordered_map>
#include <utility>

#include "db/error.h"
#include "db/ops/problem_label.h"
#include "db/run_order.h"
#include "runtime/snapshot.h"
#include "runtime/stored_device.h"

namespace vktune::db::ops {
namespace {

// What one device measured on one problem, by variant key.
// A variant's best ok median there and the samples behind it.
struct Timed {
  double ns = 0;
  uint32_t samples = 0;
};
using Times = std::unordered_map<std::string, Timed>;  // by variant key
// A run's place in time (db/run_order.h, the order db::Catalog::ranked reads runs in), then its
// id: runs without a row have no place, sort first and stay apart.
using RunPlace = std::pair<std::optional<size_t>, int64_t>;
struct ProblemTimes {
  Times ok;                          // over every run
  std::map<RunPlace, Times> by_run;  // oldest run first -> that run's times
  std::set<std::string> wrong;      // variants with a wrong_result there
};

void keep_fastest(Times& times, const std::string& key, const db::Measurement& m) {
  const Timed t{*m.median_ns, m.n};
  const auto [it, added] = times.emplace(key, t);
  if (!added && t.ns < it->second.ns) it->second = t;
}

using DeviceProblem = std::pair<int64_t, int64_t>;

std::map<DeviceProblem, ProblemTimes> measured_times(const db::Store& store,
                                                     const db::Catalog& catalog) {
  std::unordered_map<int64_t, const std::string*> key_of;
  for (const auto& k : catalog.kernels) key_of.emplace(k.id, &k.variant_key);
  std::vector<std::pair<int64_t, std::string>> runs;
  for (const db::RunRecord& r : store.runs()) runs.emplace_back(r.id, r.started_at);
  const db::RunOrder order(std::move(runs));
  std::map<DeviceProblem, ProblemTimes> out;
  for (const db::Measurement& m : store.measurements()) {
    const auto key = key_of.find(m.kernel_id);
    if (key == key_of.end()) continue;
    ProblemTimes& t = out[{m.device_id, m.problem_id}];
    if (m.status == db::Status::wrong_result) {
      t.wrong.insert(*key->second);
    } else if (m.status == db::Status::ok && m.median_ns) {
      keep_fastest(t.ok, *key->second, m);
      keep_fastest(t.by_run[RunPlace{order.rank(m.run_id), m.run_id}], *key->second, m);
    }
  }
  // A variant that was wrong there once is never a legal answer there (as in the `best` view).
  for (auto& [where, t] : out) {
    for (const std::string& key : t.wrong) {
      t.ok.erase(key);
      for (auto& [run, times] : t.by_run) times.erase(key);
    }
  }
  std::erase_if(out, [](const auto& entry) { return entry.second.ok.empty(); });
  return out;
}

// The catalog as the runtime would see it had `hidden` never been tuned.
db::Catalog without(const db::Catalog& catalog, const std::set<int64_t>& hidden) {
  db::Catalog rest;
  rest.devices = catalog.devices;
  rest.kernels = catalog.kernels;
  rest.problems = catalog.problems;
  std::erase_if(rest.problems, [&](const db::Problem& p) { return hidden.count(p.id) > 0; });
  for (const db::BestRow& w : catalog.winners) {
    if (hidden.count(w.problem_id) == 0) rest.winners.push_back(w);
  }
  for (const db::BestRow& r : catalog.ranked) {
    if (hidden.count(r.problem_id) == 0) rest.ranked.push_back(r);
  }
  return rest;
}

// The problems hidden with `problem`: itself, and with Hide::shape its shape's other group sizes.
std::set<int64_t> hidden_with(const db::Problem& problem, const db::Catalog& catalog, Hide hide) {
  std::set<int64_t> out{problem.id};
  if (hide == Hide::problem) return out;
  for (const db::Problem& p : catalog.problems) {
    if (std::tie(p.op, p.dtype, p.m, p.n, p.k, p.heads, p.kv_heads) ==
        std::tie(problem.op, problem.dtype, problem.m, problem.n, problem.k, problem.heads,
                 problem.kv_heads)) {
      out.insert(p.id);
    }
  }
  return out;
}

// The fastest of `times` (ties to the smaller key, so the answer never depends on the order).
std::pair<std::string, Timed> fastest(const Times& times) {
  const auto best = std::min_element(times.begin(), times.end(), [](const auto& a, const auto& b) {
    return a.second.ns < b.second.ns || (a.second.ns == b.second.ns && a.first < b.first);
  });
  return *best;
}

// The times EvaluationCase::regret of `picked`, which has an ok time there, is read in: of the
// runs that measured it, the one that measured the most variants, the latest such (a run that
// re-measures a problem supersedes the one before, as in the ranking).
const Times& regret_run(const ProblemTimes& times, const std::string& picked) {
  const Times* widest = nullptr;
  for (const auto& [run, t] : times.by_run) {  // oldest first: a tie goes to the later run
    if (t.count(picked) != 0 && (widest == nullptr || t.size() >= widest->size())) widest = &t;
  }
  return *widest;
}

EvaluationCase evaluate_one(const runtime::Snapshot& snapshot, const db::DeviceRecord& device,
                            const db::Problem& problem, const ProblemTimes& times) {
  EvaluationCase c;
  c.device = device.name;
  c.problem = problem;
  const auto set_best = [&c](const std::pair<std::string, Timed>& best) {
    c.best = best.first;
    c.best_ns = best.second.ns;
    c.best_samples = best.second.samples;
  };
  set_best(fastest(times.ok));
  const runtime::DeviceQuery query = runtime::stored_device_query(device);
  const runtime::ProblemQuery q = runtime::stored_problem_query(problem);
  const runtime::Selection s = snapshot.select(query, q);
  c.shape_match = s.shape_match;
  c.shape_distance = s.shape_distance;
  if (!s.ok()) {
    c.miss = "no answer: " + std::string(s.error);
    return c;
  }
  c.picked = s.variant_key;
  if (!s.constraints.allows(q)) {
    c.miss = "illegal there";
  } else if (times.wrong.count(c.picked) != 0) {
    c.miss = "wrong result there";
  } else if (const auto t = times.ok.find(c.picked); t == times.ok.end()) {
    c.miss = "never measured there";
  } else {
    c.regret_across_runs = t->second.ns / c.best_ns - 1;
    const Times& run = regret_run(times, c.picked);
    set_best(fastest(run));
    const Timed& picked = run.at(c.picked);
    c.picked_ns = picked.ns;
    c.picked_samples = picked.samples;
    c.regret = *c.picked_ns / c.best_ns - 1;
  }
  return c;
}

// Nearest-rank percentile of sorted values: the smallest value with at least `p` of them at
// or below it.
double percentile(const std::vector<double>& sorted, double p) {
  const auto rank = static_cast<size_t>(std::ceil(p * static_cast<double>(sorted.size())));
  return sorted[std::max<size_t>(rank, 1) - 1];
}

std::string percent(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", 100 * v);
  return buf;
}

RegretSummary summarise(std::vector<double> values) {
  RegretSummary s;
  if (values.empty()) return s;
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  s.count = n;
  s.median = n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
  s.p90 = percentile(values, 0.9);
  s.max = values.back();
  double log_sum = 0;
  for (const double r : values) {
    s.within_10pct += r <= 0.1 ? 1 : 0;
    log_sum += std::log1p(r);
  }
  s.mean_log = log_sum / static_cast<double>(n);
  return s;
}

// "median 0.4%  p90 9.0%  max 30.1%  within 10% 216 of 236  mean ln(1 + r) 2.5%"
std::string summary_line(const RegretSummary& s) {
  return "median " + percent(s.median) + "  p90 " + percent(s.p90) + "  max " + percent(s.max) +
         "  within 10% " + std::to_string(s.within_10pct) + " of " + std::to_string(s.count) +
         "  mean ln(1 + r) " + percent(s.mean_log);
}

nlohmann::ordered_json summary_json(const RegretSummary& s) {
  return {{"count", s.count},
          {"median", s.median},
          {"p90", s.p90},
          {"max", s.max},
          {"within_10pct", s.within_10pct},
          {"mean_log1p", s.mean_log}};
}

// The Evaluation::by_class a case counts in.
std::string evaluation_class(const db::Problem& p) {
  if (p.heads == 0) return p.op;
  return p.op + " " + std::to_string(p.heads) + "/" + std::to_string(p.kv_heads);
}

}  // namespace

Evaluation evaluate_leave_one_out(const db::Store& store, RuntimeInput input, Hide hide) {
  db::Catalog catalog = store.catalog(/*with_spirv=*/false);
  if (input == RuntimeInput::winners) catalog.ranked = catalog.winners;
  const auto times = measured_times(store, catalog);
  std::set<int64_t> problem_ids;
  for (const auto& [where, t] : times) problem_ids.insert(where.second);
  if (problem_ids.size() < 2) {
    throw Error(store.label() + " has measurements of " + std::to_string(problem_ids.size()) +
                " problem(s); leave-one-problem-out needs at least two (one to hide, one to "
                "answer from)");
  }
  std::unordered_map<int64_t, const db::DeviceRecord*> devices;
  for (const auto& d : catalog.devices) devices.emplace(d.id, &d);
  std::unordered_map<int64_t, const db::Problem*> problems;
  for (const auto& p : catalog.problems) problems.emplace(p.id, &p);

  Evaluation e;
  e.hide = hide;
  for (const int64_t hidden : problem_ids) {
    std::string error;
    const auto snapshot = runtime::Snapshot::from_catalog(
        without(catalog, hidden_with(*problems.at(hidden), catalog, hide)), &error);
    if (!snapshot) throw Error("cannot build a lookup snapshot: " + error);
    for (auto it = times.lower_bound({0, 0}); it != times.end(); ++it) {
      if (it->first.second != hidden) continue;
      e.cases.push_back(
          evaluate_one(*snapshot, *devices.at(it->first.first), *problems.at(hidden), it->second));
    }
  }
  std::vector<double> regrets, across;
  std::map<std::string, std::vector<double>> by_class;
  for (const auto& c : e.cases) {
    if (c.regret) {
      regrets.push_back(*c.regret);
      by_class[evaluation_class(c.problem)].push_back(*c.regret);
    }
    if (c.regret_across_runs) across.push_back(*c.regret_across_runs);
  }
  e.misses = e.cases.size() - regrets.size();
  e.regret = summarise(std::move(regrets));
  e.across_runs = summarise(std::move(across));
  for (auto& [name, values] : by_class) e.by_class.emplace(name, summarise(std::move(values)));
  std::stable_sort(e.cases.begin(), e.cases.end(), [](const EvaluationCase& a, const EvaluationCase& b) {
    if (a.regret.has_value() != b.regret.has_value()) return !a.regret.has_value();
    return a.regret.value_or(0) > b.regret.value_or(0);
  });
  return e;
}

std::string render_evaluation_text(const Evaluation& e, size_t worst) {
  std::string out = std::string(e.hide == Hide::shape ? "leave-one-shape-out (every group size)"
                                                      : "leave-one-problem-out") +
                    ": " + std::to_string(e.cases.size()) + " cases, " +
                    std::to_string(e.misses) + " miss(es)\n";
  out += "regret (within one run)  " + summary_line(e.regret) + "\n";
  out += "across runs              " + summary_line(e.across_runs) + "\n";
  for (const auto& [name, summary] : e.by_class) {
    char label[32];
    std::snprintf(label, sizeof label, "  %-22s", name.c_str());
    out += label + summary_line(summary) + "\n";
  }
  if (worst == 0 || e.cases.empty()) return out;
  out += "\nworst cases:\n";
  for (size_t i = 0; i < std::min(worst, e.cases.size()); ++i) {
    const EvaluationCase& c = e.cases[i];
    out += "  " + problem_label(c.problem) + " (" + c.device + ", " +
           std::string(runtime::to_string(c.shape_match));
    if (c.shape_match != runtime::ShapeMatch::exact && c.shape_distance > 0) {
      char buf[32];
      std::snprintf(buf, sizeof buf, " %.2f", c.shape_distance);
      out += buf;
    }
    out += "): " +
           (c.regret ? "regret " + percent(*c.regret) + " (across runs " +
                           percent(c.regret_across_runs.value_or(0)) + ")"
                     : "MISS, " + c.miss) +
           "\n";
    // The samples behind each time: a halving run's first round times a variant once.
    const auto samples = [](uint32_t n) {
      return "  (" + std::to_string(n) + (n == 1 ? " sample)" : " samples)");
    };
    out += "    picked " + (c.picked.empty() ? std::string("nothing") : c.picked) +
           (c.picked_ns ? samples(c.picked_samples) : std::string()) + "\n";
    out += "    best   " + c.best + samples(c.best_samples) + "\n";
  }
  return out;
}

std::string render_evaluation_json(const Evaluation& e, size_t worst) {
  nlohmann::ordered_json j;
  j["hidden"] = e.hide == Hide::shape ? "shape" : "problem";
  j["cases"] = e.cases.size();
  j["misses"] = e.misses;
  j["regret"] = summary_json(e.regret);
  j["regret_across_runs"] = summary_json(e.across_runs);
  nlohmann::ordered_json& classes = j["by_class"] = nlohmann::ordered_json::object();
  for (const auto& [name, summary] : e.by_class) classes[name] = summary_json(summary);
  nlohmann::ordered_json& list = j["worst"] = nlohmann::ordered_json::array();
  for (size_t i = 0; i < std::min(worst, e.cases.size()); ++i) {
    const EvaluationCase& c = e.cases[i];
    const auto optional = [](const std::optional<double>& v) {
      return v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json(nullptr);
    };
    nlohmann::ordered_json problem = {{"op", c.problem.op}, {"dtype", c.problem.dtype},
                                      {"m", c.problem.m},   {"n", c.problem.n},
                                      {"k", c.problem.k},   {"group_size", c.problem.group_size}};
    if (c.problem.heads > 0) {
      problem["heads"] = c.problem.heads;
      problem["kv_heads"] = c.problem.kv_heads;
    }
    list.push_back({{"device", c.device},
                    {"problem", std::move(problem)},
                    {"shape_match", runtime::to_string(c.shape_match)},
                    {"shape_distance", c.shape_distance},
                    {"picked", c.picked},
                    {"picked_ns", optional(c.picked_ns)},
                    {"picked_samples", c.picked_ns ? nlohmann::ordered_json(c.picked_samples)
                                                   : nlohmann::ordered_json(nullptr)},
                    {"best", c.best},
                    {"best_ns", c.best_ns},
                    {"best_samples", c.best_samples},
                    {"regret", optional(c.regret)},
                    {"regret_across_runs", optional(c.regret_across_runs)},
                    {"miss", c.miss}});
  }
  return j.dump(1) + "\n";
}

}  // namespace vktune::db::ops
