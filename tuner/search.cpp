// Ranking, halving and per-stage timing.
#include "tuner/search.h"

#include <algorithm>
#include <cmath>

#include "runtime/builtin.h"
#include "tuner/knob_neighbours.h"

namespace vktune::tuner {

std::vector<Candidate*> ranked(const std::vector<Candidate*>& pool) {
  std::vector<Candidate*> timed;
  for (Candidate* c : pool) {
    if (c->timed()) timed.push_back(c);
  }
  std::stable_sort(timed.begin(), timed.end(), [](const Candidate* a, const Candidate* b) {
    return a->stats->median < b->stats->median;
  });
  return timed;
}

Finalists pick_finalists(std::vector<Candidate>& list, const std::vector<Candidate*>& pool,
                         size_t count, const std::string& fixed_key) {
  Finalists f;
  f.top = ranked(pool);
  if (f.top.size() > count) f.top.resize(count);
  std::erase_if(f.top, [&](Candidate* c) {
    const bool baseline = kernels::is_baseline(*c->family);
    if (baseline) f.baselines.push_back(c);
    return baseline;
  });
  const auto add_baseline = [&](Candidate* c) {
    if (std::find(f.top.begin(), f.top.end(), c) == f.top.end() &&
        std::find(f.baselines.begin(), f.baselines.end(), c) == f.baselines.end()) {
      f.baselines.push_back(c);
    }
  };
  Candidate* naive = nullptr;
  for (Candidate& c : list) {
    if (!c.timed()) continue;
    if (kernels::is_baseline(*c.family) &&
        (naive == nullptr || c.stats->median < naive->stats->median)) {
      naive = &c;
    }
    if (c.key == fixed_key) add_baseline(&c);
  }
  if (naive != nullptr) add_baseline(naive);
  return f;
}

std::vector<Candidate*> halve(const std::vector<Candidate*>& pool, size_t finalists,
                              const std::set<std::string>& protect) {
  std::vector<Candidate*> timed = ranked(pool);
  if (timed.empty()) return timed;
  const double bound = timed.front()->stats->median * kAdvanceWithin;
  size_t keep = 0;
  while (keep < timed.size() && timed[keep]->stats->median <= bound) ++keep;
  keep = std::max(finalists, std::min(keep, (timed.size() + 2) / 3));
  std::vector<Candidate*> advance(timed.begin(), timed.begin() + std::min(keep, timed.size()));
  for (size_t i = advance.size(); i < timed.size(); ++i) {
    if (protect.contains(timed[i]->key)) advance.push_back(timed[i]);
  }
  return advance;
}

Recheck recheck(const std::vector<Candidate*>& pool) {
  const std::vector<Candidate*> timed = ranked(pool);
  if (timed.empty()) return {};
  Recheck r;
  r.bound = timed.front()->stats->median * kAdvanceWithin;
  std::vector<KnobbedVariant> knobbed;
  for (const Candidate* c : timed) knobbed.push_back({c->family, &c->knobs});
  const std::vector<std::vector<size_t>> neighbours = one_knob_neighbours(knobbed);
  for (size_t i = 0; i < timed.size(); ++i) {
    const double median = timed[i]->stats->median;
    if (median <= r.bound) continue;
    for (size_t j : neighbours[i]) {
      const double other = timed[j]->stats->median;
      if (other <= r.bound && median > kRecheckRatio * other) {
        r.again.push_back(timed[i]);
        break;
      }
    }
  }
  return r;
}

double log_distance(const kernels::Problem& a, const db::Problem& b) {
  auto term = [](double x, double y) { return std::pow(std::log(x) - std::log(y), 2); };
  return std::sqrt(term(a.m, b.m) + term(a.n, b.n) + term(a.k, b.k));
}

bool same_kind(const db::Problem& tuned, const kernels::Problem& problem) {
  return tuned.op == kernels::op_name(problem.op) &&
         tuned.dtype == kernels::dtype_name(problem.dtype) &&
         tuned.group_size == problem.group_size && tuned.heads == problem.heads &&
         tuned.kv_heads == problem.kv_heads;
}

std::set<std::string> nearest_winners(
    const std::vector<std::pair<db::Problem, std::string>>& winners,
    const kernels::Problem& problem, size_t count) {
  std::vector<std::pair<double, const std::string*>> by_distance;
  for (const auto& [p, key] : winners) {
    if (same_kind(p, problem)) by_distance.emplace_back(log_distance(problem, p), &key);
  }
  std::sort(by_distance.begin(), by_distance.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  // Distances equal up to rounding (M/2 and 2M) are one step.
  constexpr double kSameDistance = 1e-9;
  std::set<std::string> keys;
  size_t steps = 0;
  double step = 0;
  for (const auto& [d, key] : by_distance) {
    if (keys.empty()) step = d;
    if (d > step + kSameDistance) {
      if (++steps == count) break;
      step = d;
    }
    keys.insert(*key);
  }
  return keys;
}

std::string fixed_routing_key(const kernels::Problem& p) {
  return std::string(runtime::builtin_key(
      {kernels::op_name(p.op), kernels::dtype_name(p.dtype), p.m, p.n, p.k, p.group_size,
       p.heads, p.kv_heads}));
}

bool is_reference(const Candidate& c, const std::string& fixed_key) {
  return c.key == fixed_key || kernels::is_baseline(*c.family);
}

void order_candidates(std::vector<Candidate>& list, const std::map<std::string, double>& warm_rank,
                      const std::function<bool(const Candidate&)>& is_baseline) {
  std::vector<Candidate> warm, baselines;
  std::vector<std::vector<Candidate>> by_family;  // in order of first appearance
  std::vector<const kernels::Family*> families;
  for (Candidate& c : list) {
    if (warm_rank.count(c.key)) {
      warm.push_back(std::move(c));
    } else if (is_baseline(c)) {
      baselines.push_back(std::move(c));
    } else {
      auto it = std::find(families.begin(), families.end(), c.family);
      if (it == families.end()) {
        families.push_back(c.family);
        by_family.emplace_back();
        it = families.end() - 1;
      }
      by_family[it - families.begin()].push_back(std::move(c));
    }
  }
  std::stable_sort(warm.begin(), warm.end(), [&](const Candidate& a, const Candidate& b) {
    return warm_rank.at(a.key) < warm_rank.at(b.key);
  });
  list.clear();
  for (Candidate& c : warm) list.push_back(std::move(c));
  for (Candidate& c : baselines) list.push_back(std::move(c));
  for (size_t i = 0, taken = 1; taken > 0; ++i) {
    taken = 0;
    for (auto& family : by_family) {
      if (i < family.size()) {
        list.push_back(std::move(family[i]));
        ++taken;
      }
    }
  }
}

TimingOptions stage_timing(const TimingOptions& full, int stage) {
  TimingOptions t = full;
  if (stage == 0) {
    // One sample of a quarter of the full span: enough to tell what is near the best from the rest
    // (variants differ by far more than the 1-2% noise of one sample at a steady clock).
    t.min_samples = t.max_samples = 1;
    t.min_sample_ns = full.min_sample_ns / 4;
    t.budget = full.budget / 8;
    return t;
  }
  const uint32_t samples = 3u << std::min(stage - 1, 16);
  t.min_samples = std::min(full.min_samples, samples);
  t.max_samples = std::min(full.max_samples, samples);
  t.budget = std::min(full.budget, full.budget * (samples / 24.0));
  return t;
}

}  // namespace vktune::tuner
