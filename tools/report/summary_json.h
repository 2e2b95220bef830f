// `report --format summary-json`, `tune --json` and `bench --json`: the Summary as one compact
// JSON document for scripts: per device its limits and geometric means, per problem the winner
// and the numbers that say whether to believe it. Not a copy of `export`: no raw measurements.
#pragma once

#include <string>

#include "tools/report/summary.h"

namespace vktune::report {

// {"format": "vktune-summary", "version": 1, "source": FILE NAME, "devices": [{"name",
// "vendor_id", "device_id", "driver", "copy_bandwidth_gbps", "geomean_x_fixed": {CLASS: x},
// "problems": [{"op", "dtype", "m", "n", "k", "group_size", "winner", "family", "median_ns",
// "p10_ns", "p90_ns", "runner_up", "runner_up_ns", "gbps", "gflops", "x_naive", "x_fixed",
// "measured", "legal", "cut", "flags": [TEXT]}]}]}. Absent values are null; one line, LF-ended.
std::string render_summary_json(const Summary& summary);

}  // namespace vktune::report
