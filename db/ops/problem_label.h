// A stored problem as one line of text and back, as reports, `vktune evaluate` and the
// --heatmap-problem option write and read it; the op's own description (kernels/op.h) where the
// catalogue knows the op.
#pragma once

#include <string>
#include <string_view>

#include "db/records.h"

namespace vktune::db::ops {

// "q4gsw M=1 N=4096 K=4096 gs=32" / "rms_norm M=8 N=4096" / "sdpa M=1 L=8192 Hq=32 Hkv=8 D=128".
std::string problem_label(const db::Problem& p);

// Parses a problem_label-style string ("q4gsw M=64 N=4096 K=4096 gs=32"; keys are
// case-insensitive, dtype defaults to f32, rms_norm may omit K and gs; sdpa's L and D are N and K).
// Throws std::invalid_argument naming the bad token.
db::Problem parse_problem_label(std::string_view text);

}  // namespace vktune::db::ops
