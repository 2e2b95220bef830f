// Human and JSON renderings of a Selection, for `vktune lookup` and logs.
#pragma once

#include <string>

#include "runtime/selection.h"

namespace vktune::runtime {

// Multi-line text: the variant, its layout and workgroup size, the measured time, and how it
// was found ("nearest tuned problem M=1 N=4096 K=4096 gs=32, log-distance 0.69"). Allocates;
// not for the hot path. Never throws except std::bad_alloc.
std::string describe(const Selection& s);

// The same as one JSON object: {"status", "error", "family", "variant_key", "knobs" (object,
// declared order), "layout", "workgroup_size", "spirv_bytes", "specialization" ([[constant_id,
// value], ...]), "median_ns" (or null),
// "device_match", "shape_match", "shape_distance", "matched_device", "matched_problem"}.
std::string describe_json(const Selection& s);

}  // namespace vktune::runtime
