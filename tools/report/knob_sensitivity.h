// Which knobs matter for the families that win: per knob value, how far the family's best
// variant with that value falls behind the problem's winner, over the problems the family won.
// A knob whose values all sit near 1.00x could be dropped from the sweep; one with a wide
// spread is what the tuner is for.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tools/report/summary.h"

namespace vktune::report {

struct KnobValueCost {
  std::string value;
  int64_t problems = 0;           // problems won by the family where this value was measured
  double geomean_slowdown = 0;    // best time with this value / the winner's time, geometric mean
};

struct KnobSensitivity {
  std::string knob;
  std::vector<KnobValueCost> values;  // in the knob's value order (integers numerically)
  // Largest over smallest geomean_slowdown: 1.0 for a knob that never matters.
  double spread = 1;
};

struct FamilySensitivity {
  std::string family;
  int64_t problems_won = 0;
  std::vector<KnobSensitivity> knobs;  // widest spread first
};

// Families by problems won (most first); families that win nothing are left out. Keys that do
// not parse are skipped: a report never fails on what an older tool stored.
std::vector<FamilySensitivity> knob_sensitivity(const DeviceSummary& device);

// One table per family (rows: knobs, cells: value and slowdown); "" when no family won.
std::string render_knob_sensitivity(const std::vector<FamilySensitivity>& families);

}  // namespace vktune::report
