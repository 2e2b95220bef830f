// Search strategies as pure rules over measured candidates: which advance, and how hard each
// stage measures.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "tuner/candidate.h"
#include "tuner/dispatch_timer.h"

namespace vktune::tuner {

// The timed candidates of `pool` (status ok with stats), fastest median first.
std::vector<Candidate*> ranked(const std::vector<Candidate*>& pool);

// How far behind the stage's best a variant may be and still advance. One short sample at a
// steady clock is within a few percent of the variant's time; a variant 1.5x behind the best
// does not catch up, and in a large space most variants are that far behind, so this (not the
// best third) is what usually decides how much the next stage measures.
inline constexpr double kAdvanceWithin = 1.5;

// Halving: the variants within kAdvanceWithin of the best advance, at most the best third and
// never fewer than `finalists`.
std::vector<Candidate*> halve(const std::vector<Candidate*>& pool, size_t finalists);

// The variant today's engines would use for `problem` (runtime/builtin.h): a baseline every
// speedup is quoted against, measured early and re-measured beside the finalists.
std::string fixed_routing_key(const kernels::Problem& problem);

// Measurement order, for runs whose budget may end a problem early: first the winners of
// tuned neighbouring problems (`warm_rank`: variant key -> log-distance of the nearest problem
// it won; nearest first), then the baselines every speedup is quoted against, then the rest
// round-robin across families, so a cut run has still sampled every family.
void order_candidates(std::vector<Candidate>& list, const std::map<std::string, double>& warm_rank,
                      const std::function<bool(const Candidate&)>& is_baseline);

// Stage `stage` of halving: stage 0 is a cheap estimate (one short sample); stage 1 takes three
// full samples and each later stage doubles them and the budget, up to the full measurement.
TimingOptions stage_timing(const TimingOptions& full, int stage);

}  // namespace vktune::tuner
