#include "tuner/budget_note.h"

#include "kernels/problem.h"

namespace vktune::tuner {

std::string budget_cut_note(const TuneResult& result) {
  const auto reached = [](const ProblemOutcome& p) { return p.measured + p.resumed; };
  const ProblemOutcome* least = nullptr;
  size_t cut = 0;
  for (const ProblemOutcome& p : result.problems) {
    if (!p.budget_cut) continue;
    ++cut;
    // reached(p) / p.legal < reached(least) / least->legal, without a division by 0.
    if (least == nullptr || reached(p) * least->legal < reached(*least) * p.legal) least = &p;
  }
  if (least == nullptr) return {};
  return "budget: " + std::to_string(cut) + " of " + std::to_string(result.problems.size()) +
         " problems were cut short (" + kernels::describe(least->problem) + " reached " +
         std::to_string(reached(*least)) + " of " + std::to_string(least->legal) +
         " legal variants); each winner is the best of what its problem reached. The same "
         "command with --fill measures the rest, or give a larger --budget.";
}

}  // namespace vktune::tuner
