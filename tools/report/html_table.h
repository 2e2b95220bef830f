// The per-problem table of the HTML report: one row per problem with the numbers that decide
// whether its winner can be believed, sortable by any column and filterable (the page's one
// script, kTableScript).
#pragma once

#include <string>
#include <vector>

#include "tools/report/anomalies.h"
#include "tools/report/summary.h"

namespace vktune::report {

// <table class="sortable" id="problems-DEVICE"> under a filter box: columns problem, M, family,
// winner, time, spread, margin, GB/s, %BW, GFLOP/s, x naive, x fixed, coverage, flags. A cut
// search's row is <tr class="cut">; rows with a flag carry data-flagged. Row ids are
// "p-DEVICE-INDEX" (INDEX into device.problems), so the summary can link to them.
std::string render_problem_table(const DeviceSummary& device, size_t device_index,
                                 const std::vector<Anomaly>& anomalies);

// Sorts a table.sortable on a click of its header (numbers by data-v, text by content; again
// to reverse) and filters its rows by the words typed into the box above it.
extern const char* const kTableScript;

}  // namespace vktune::report
