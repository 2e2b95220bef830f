// What a run's --budget cut short, in words for the run's closing lines: a cut problem's winner
// is the best of the variants it reached, which where the first problems pay the compiles can be
// a handful of thousands.
#pragma once

#include <string>

#include "tuner/session.h"

namespace vktune::tuner {

// Empty when the budget cut no problem; else how many it cut, the one that reached the smallest
// share of its legal variants, and how to finish them (--fill, or a larger --budget).
std::string budget_cut_note(const TuneResult& result);

}  // namespace vktune::tuner
