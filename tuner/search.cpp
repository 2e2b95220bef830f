// Ranking, halving and per-stage timing.
#include "tuner/search.h"

#include <algorithm>

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

std::vector<Candidate*> halve(const std::vector<Candidate*>& pool, size_t finalists) {
  std::vector<Candidate*> timed = ranked(pool);
  const size_t keep = std::max(finalists, (timed.size() + 2) / 3);
  if (timed.size() > keep) timed.resize(keep);
  return timed;
}

TimingOptions stage_timing(const TimingOptions& full, int stage) {
  TimingOptions t = full;
  const uint32_t factor = 1u << std::min(stage, 16);
  t.min_samples = std::min(full.min_samples, 3 * factor);
  t.max_samples = std::min(full.max_samples, 3 * factor);
  t.budget = std::min(full.budget, full.budget * (factor / 8.0));
  t.warmup = std::min<uint32_t>(full.warmup, 1);
  return t;
}

}  // namespace vktune::tuner
