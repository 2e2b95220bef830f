// The search strategies behind one interface: given what has been measured, which variants to
// measure next and when to stop. The session's loop (session_problem.cpp) compiles, gates, times
// and stores what a strategy names and knows none of them: exhaustive measures every variant
// fully; halving estimates the variants of every family not far behind the others
// (family_screen.h), then narrows the pool stage by stage (search.h); model
// estimates what the cost model's search picks (model_search.h), then narrows as halving does.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "tuner/candidate.h"
#include "tuner/dispatch_timer.h"
#include "tuner/family_screen.h"
#include "tuner/model_search.h"

namespace vktune::tuner {

// A stage after stage one: which of the pool to time again, and how.
struct LaterStage {
  std::vector<Candidate*> measure;
  TimingOptions timing;
  // True: the pool narrows to `measure`, the rest leave the race. False: a second look at part
  // of the pool, which stays whole (halving's recheck).
  bool narrows = true;
  // Of a second look: a candidate whose new median is at most this counts as recovered.
  double recovered_within = 0;
};

class SearchStrategy {
 public:
  virtual ~SearchStrategy() = default;
  // How stage one times each variant.
  virtual const TimingOptions& first_timing() const = 0;
  // Up to `max` indices into the problem's candidate list to take through stage one next;
  // empty: stage one is over. A resumed candidate handed out is skipped by the caller.
  virtual std::vector<size_t> next(size_t max) = 0;
  // True when next() has nothing more to hand out and knows it without being asked (the end of
  // a list); a strategy that learns it only when asked says false.
  virtual bool stage_one_over() const { return false; }
  // Candidate `i` finished stage one: its median, nullopt when it failed.
  virtual void measured(size_t i, std::optional<double> ns) = 0;
  // What stage one ended on, for the progress log; empty: nothing to say.
  virtual std::string summary() const { return {}; }
  // The next stage over `pool` (the timed candidates still in the race); nullopt: the pool
  // holds the finalists.
  virtual std::optional<LaterStage> next_stage(const std::vector<Candidate*>& pool) = 0;
};

// Every candidate not resumed, in list order, at the full timing; no later stage.
std::unique_ptr<SearchStrategy> exhaustive_strategy(const std::vector<Candidate>& list,
                                                    const TimingOptions& full);

// The candidates not resumed estimated by one short sample, the families screened first and those
// far behind left out (family_screen.h); then the pool rechecked and halved (search.h) until
// `finalists` remain. `protect`: the keys halving's first narrowing keeps whatever they read
// (nearest_winners); they and the candidates `exempt` names are never left out.
std::unique_ptr<SearchStrategy> halving_strategy(
    const std::vector<Candidate>& list, const TimingOptions& full, size_t finalists,
    std::set<std::string> protect, const std::function<bool(const Candidate&)>& exempt,
    ScreenRule screen = {});

// The candidates `search` picks, estimated as halving does, then halving's later stages.
// `legal`: the variants the search chose from, for the summary.
std::unique_ptr<SearchStrategy> model_strategy(ModelSearch search, size_t legal,
                                               const TimingOptions& full, size_t finalists,
                                               std::set<std::string> protect);

}  // namespace vktune::tuner
