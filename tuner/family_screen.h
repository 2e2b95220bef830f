// Halving's stage one in two parts. First a screen: every exempt candidate (the baselines, the
// fixed routing's choice, the protected neighbours' winners) and up to `probes` variants of each
// family, picked by a hash of their keys, so the pick is the same in every run and spread over
// the family's knobs rather than its first values. Then the rest of each family whose best
// screened time is within `within` times the best of the screen; the variants of a family
// further behind are not measured.
//
// Why: the gate dispatches every variant on the whole problem once, and a family that loses by
// far spends most of a run's GPU time there. On the H200's llama3-8b run (halving, M 1 and 128),
// q4gsw_tiled's 382 variants a problem lost by 6.6-18.6x and took 9.2 of the 16.5 s its
// stage-one dispatches added up to. Replayed on the shipped databases' measurements
// (bench/replay_family_screen.py: 2,651 problems of every op, 12 on lavapipe, the rest on the
// H100 and H200), 8 probes and a factor of 4 change no winner by more than 1%; 8 probes at 3x
// lose up to 5.1% on 11 of them (docs/tuning-loop.md).
#pragma once

#include <cstddef>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "tuner/candidate.h"

namespace vktune::tuner {

struct ScreenRule {
  size_t probes = 8;    // screened variants of each family, besides its exempt ones
  double within = 4.0;  // a family whose best screened time is further behind is dropped
};
// Every variant screened, in the list's order: nothing is left out.
inline constexpr ScreenRule kScreenAll{std::numeric_limits<size_t>::max(),
                                       std::numeric_limits<double>::infinity()};

class FamilyScreen {
 public:
  // A resumed candidate is never handed out; its stage-one time counts as screened.
  FamilyScreen(const std::vector<Candidate>& list,
               const std::function<bool(const Candidate&)>& exempt, ScreenRule rule = {});
  // Up to `max` indices into the list: the screen's, then, once it was handed out and measured,
  // the rest of the families kept.
  std::vector<size_t> next(size_t max);
  bool over() const { return decided_ && next_ == order_.size(); }
  // Candidate `i`'s stage-one time, nullopt when it failed.
  void measured(size_t i, std::optional<double> ns);
  // The families dropped, each with its variants left out and its distance from the best; empty
  // when none was.
  std::string summary() const;

 private:
  void decide();

  struct Group {
    const kernels::Family* family = nullptr;
    std::vector<size_t> rest;  // not screened, in list order
    std::optional<double> best;
    bool dropped = false;
  };
  ScreenRule rule_;
  std::vector<Group> groups_;
  std::vector<size_t> group_of_;  // by list index
  std::vector<size_t> order_;     // the screen's, then after decide() the kept families' rest
  size_t next_ = 0;
  bool decided_ = false;
  std::optional<double> best_;  // of the screen
};

}  // namespace vktune::tuner
