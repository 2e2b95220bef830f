// The roofline of one device: each winner's achieved GFLOP/s against its arithmetic intensity
// (flop per byte moved), under the bandwidth roof (the measured copy bandwidth) and a compute
// roof (read from the device's datasheet, or the highest rate any winner reached).
#pragma once

#include <optional>
#include <string>

#include "tools/report/family_map.h"
#include "tools/report/summary.h"

namespace vktune::report {

struct Roofs {
  std::optional<double> bandwidth_gbps;  // the device's measured copy bandwidth
  double compute_gflops = 0;
  bool compute_measured = false;  // true: the highest winner's rate, a lower bound of the peak
};

// peak_gflops: the compute roof a user read from the datasheet; without it, the highest
// GFLOP/s of any winner on the device (0 when none has a rate).
Roofs roofs_of(const DeviceSummary& device, std::optional<double> peak_gflops);

// Log-log <svg>: a <circle class="roof-point"> per winner with both rates, coloured by family;
// the roofs as <line class="limit"> (bandwidth) and <line class="roof"> (compute). Returns ""
// when no winner has both rates.
std::string render_roofline(const DeviceSummary& device, const Roofs& roofs,
                            const FamilyColours& colours);

}  // namespace vktune::report
