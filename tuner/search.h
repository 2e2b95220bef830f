// Search strategies as pure rules over measured candidates: which advance, and how hard each
// stage measures.
#pragma once

#include <functional>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "db/records.h"
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
// never fewer than `finalists`. The timed variants whose key is in `protect` advance whatever
// their time, after the others: stage one times a variant once, and one glitched sample (2.5x
// the variant's time, seen on the H100) would otherwise drop it for good.
std::vector<Candidate*> halve(const std::vector<Candidate*>& pool, size_t finalists,
                              const std::set<std::string>& protect = {});

// How far a stage-one sample may read behind a one-knob neighbour's before halving trusts it
// only after a second sample. One sample glitches now and then (2.5-5x the variant's time on the
// H100, seen where the tuned truth of a problem was such a sample); a knob changed by one value
// rarely costs that much, so a second look costs a few percent of stage one's samples (5.6% at
// 2x over the H100's database, docs/tuning-loop.md).
inline constexpr double kRecheckRatio = 2.0;

// Stage one's variants to sample once more before halving: those it would drop (further than
// kAdvanceWithin behind the best) whose one sample reads more than kRecheckRatio times that of a
// one-knob neighbour within kAdvanceWithin of the best.
struct Recheck {
  std::vector<Candidate*> again;  // fastest first
  double bound = 0;  // kAdvanceWithin x the best's time, which stays (the best is never taken again)
};
Recheck recheck(const std::vector<Candidate*>& pool);

// Distance between problem shapes: Euclidean in (log M, log N, log K).
double log_distance(const kernels::Problem& a, const db::Problem& b);

// Whether a tuned problem's winner can be one of `problem`'s candidates: the same op, dtype,
// group size and head counts (only the shape differs).
bool same_kind(const db::Problem& tuned, const kernels::Problem& problem);

// The winners of the `count` nearest problems of `winners` that share the problem's op, dtype,
// group size and head counts (problems at one distance count as one; the problem itself, tuned
// before, is the nearest): what halving protects after stage one.
std::set<std::string> nearest_winners(
    const std::vector<std::pair<db::Problem, std::string>>& winners,
    const kernels::Problem& problem, size_t count);

// How many of the nearest tuned problems lend their winners to halving's `protect` after stage
// one: a problem's neighbours (the next M each way, the same M at the nearest N x K) mostly
// share its winner, and a handful of protected variants costs a handful of stage-two timings.
inline constexpr size_t kProtectedNeighbours = 4;

// The variant today's engines would use for `problem` (runtime/builtin.h): a baseline every
// speedup is quoted against, measured early and re-measured beside the finalists.
std::string fixed_routing_key(const kernels::Problem& problem);
// Whether `c` is one of the variants every speedup is quoted against: a baseline family's, or
// the fixed routing's choice (its key given).
bool is_reference(const Candidate& c, const std::string& fixed_key);

// What is re-measured at the end: the `count` fastest of the pool less the baselines among them,
// and the baselines every speedup is quoted against (those of the fastest `count`, the timed
// variant `fixed_key` of the fixed routing, the fastest timed variant of a baseline family in
// `list`), each once.
struct Finalists {
  std::vector<Candidate*> top;        // fastest first
  std::vector<Candidate*> baselines;
};
Finalists pick_finalists(std::vector<Candidate>& list, const std::vector<Candidate*>& pool,
                         size_t count, const std::string& fixed_key);

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
