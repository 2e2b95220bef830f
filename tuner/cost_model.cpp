// Training data from the store, the per-problem targets and the per-op trees.
#include "tuner/cost_model.h"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <set>
#include <tuple>

#include "tuner/records.h"

namespace vktune::tuner {
namespace {

// Rows kept per problem: every variant near its best (what the ranking must get right) and an
// even spread of the rest, so ~200 problems of ~1000 variants train in seconds.
constexpr size_t kRowsPerProblem = 320;
constexpr double kNearBest = 1.5;

// The rows of one problem to train on, fastest first.
std::vector<const Observation*> training_rows(std::vector<const Observation*> rows) {
  std::stable_sort(rows.begin(), rows.end(), [](const Observation* a, const Observation* b) {
    return a->median_ns < b->median_ns;
  });
  if (rows.size() <= kRowsPerProblem) return rows;
  size_t near = 0;
  while (near < rows.size() && rows[near]->median_ns <= rows.front()->median_ns * kNearBest) ++near;
  near = std::min(near, kRowsPerProblem / 2);
  std::vector<const Observation*> kept(rows.begin(), rows.begin() + near);
  const size_t rest = rows.size() - near, want = kRowsPerProblem - near;
  for (size_t i = 0; i < want; ++i) kept.push_back(rows[near + i * rest / want]);
  return kept;
}

}  // namespace

ProblemKey problem_key(const kernels::Problem& p) {
  return {p.op, p.dtype, p.m, p.n, p.k, p.group_size, p.has_bias, p.heads, p.kv_heads};
}

std::vector<Observation> read_observations(const db::Store& store, std::string_view device_name) {
  std::map<int64_t, bool> device_matches;
  for (const db::DeviceRecord& d : store.devices()) {
    device_matches[d.id] = device_name.empty() || d.name == device_name;
  }
  std::map<int64_t, kernels::Problem> problems;
  for (const db::Problem& p : store.problems()) {
    if (const std::optional<kernels::Problem> problem = kernels::problem_of(p)) {
      problems[p.id] = *problem;
    }
  }
  struct Variant {
    const kernels::Family* family;
    kernels::Knobs knobs;
  };
  std::map<int64_t, Variant> variants;
  for (const db::KernelRecord& k : store.kernels()) {
    const kernels::Family* family = kernels::find_family(k.family);
    if (family == nullptr) continue;
    try {
      variants[k.id] = {family, family->knobs_from_json(nlohmann::json::parse(k.knobs_json))};
    } catch (const std::exception&) {
      continue;  // a kernel of another version of the family: nothing to learn from here
    }
  }
  // Per (device, problem, kernel): the measurement with the most samples, the latest on ties.
  std::map<std::tuple<int64_t, int64_t, int64_t>, const db::Measurement*> chosen;
  db::MeasurementFilter filter;
  filter.status = db::Status::ok;
  const std::vector<db::Measurement> measurements = store.measurements(filter);
  for (const db::Measurement& m : measurements) {
    if (!m.median_ns || *m.median_ns <= 0 || !device_matches[m.device_id]) continue;
    if (!problems.count(m.problem_id) || !variants.count(m.kernel_id)) continue;
    const db::Measurement*& slot = chosen[{m.device_id, m.problem_id, m.kernel_id}];
    if (slot == nullptr || m.n >= slot->n) slot = &m;
  }
  std::vector<Observation> out;
  out.reserve(chosen.size());
  for (const auto& [key, m] : chosen) {
    const Variant& v = variants.at(m->kernel_id);
    out.push_back({problems.at(m->problem_id), v.family, v.knobs, *m->median_ns});
  }
  return out;
}

size_t count_problems(std::span<const Observation> observations, kernels::Op op) {
  std::set<ProblemKey> problems;
  for (const Observation& o : observations) {
    if (o.problem.op == op) problems.insert(problem_key(o.problem));
  }
  return problems.size();
}

CostModel::CostModel(const vk::DeviceInfo& device)
    : device_(device), space_(std::make_shared<FeatureSpace>(kernels::families())) {}

CostModel CostModel::train(std::span<const Observation> observations, const vk::DeviceInfo& device,
                           const BoostOptions& options) {
  CostModel model(device);
  std::map<kernels::Op, std::map<ProblemKey, std::vector<const Observation*>>> by_op;
  for (const Observation& o : observations)
    by_op[o.problem.op][problem_key(o.problem)].push_back(&o);
  for (const auto& [op, by_problem] : by_op) {
    if (by_problem.size() < kMinTrainingProblems) continue;
    Matrix x;
    x.cols = model.space_->size();
    std::vector<double> y;
    for (const auto& [key, rows] : by_problem) {
      const std::vector<const Observation*> kept = training_rows(rows);
      const double best = kept.front()->median_ns;
      for (const Observation* o : kept) {
        model.space_->append(*o->family, o->knobs, o->problem, device, x.values);
        y.push_back(std::min(std::log(o->median_ns / best), kTargetClip));
      }
    }
    model.trees_.emplace(op, RegressionTrees::fit(x, y, options));
    model.problems_[op] = by_problem.size();
  }
  return model;
}

size_t CostModel::problems(kernels::Op op) const {
  const auto it = problems_.find(op);
  return it == problems_.end() ? 0 : it->second;
}

double CostModel::predict(const kernels::Family& family, const kernels::Knobs& knobs,
                          const kernels::Problem& problem) const {
  std::vector<float> row;
  row.reserve(space_->size());
  space_->append(family, knobs, problem, device_, row);
  return trees_.at(problem.op).predict(row);
}

}  // namespace vktune::tuner
