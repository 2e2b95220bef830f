// Search strategies as pure rules over measured candidates: which advance, and how hard each
// stage measures.
#pragma once

#include <vector>

#include "tuner/candidate.h"
#include "tuner/dispatch_timer.h"

namespace vktune::tuner {

// The timed candidates of `pool` (status ok with stats), fastest median first.
std::vector<Candidate*> ranked(const std::vector<Candidate*>& pool);

// Halving: the best third advance, never fewer than `finalists`.
std::vector<Candidate*> halve(const std::vector<Candidate*>& pool, size_t finalists);

// Stage `stage` of halving: stage 0 is a cheap estimate (a few samples, a small budget); each
// later stage doubles the samples and the budget, up to the full measurement.
TimingOptions stage_timing(const TimingOptions& full, int stage);

}  // namespace vktune::tuner
