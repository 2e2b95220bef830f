// Which family wins where: a grid of series (op, dtype, N, K, group size) by M, each cell
// coloured by its winner's family. The roofline colours its points the same way.
#pragma once

#include <map>
#include <string>

#include "tools/report/summary.h"

namespace vktune::report {

class Svg;

// A colour per winning family of `device`, the most frequent winner first in the palette;
// families past the palette share its last (grey) colour.
using FamilyColours = std::map<std::string, std::string>;
FamilyColours family_colours(const DeviceSummary& device);

// One <rect class="fam-cell"> per problem with a winner (tooltip: problem, winner, time) and a
// legend swatch per family. Returns "" when no problem has a winner.
std::string render_family_map(const DeviceSummary& device, const FamilyColours& colours);

// Legend rows (a swatch and the family name) down from (x, y), for both views.
void family_legend(Svg& svg, double x, double y, const FamilyColours& colours);

}  // namespace vktune::report
