// A runtime query as the kernel catalogue's problem: the one conversion the dispatch contract,
// and the tests that check the runtime against the catalogue, use.
#pragma once

#include <optional>

#include "kernels/problem.h"
#include "runtime/selection.h"

namespace vktune::runtime {

// `q` as a kernels::Problem (no bias; rms_norm's eps at its default; sdpa's heads and kv_heads
// copied, L in n, the head dim in k), or nullopt when q.op names no op of the catalogue or
// q.dtype no dtype. Shapes are copied as they are: validate(q) is the check.
std::optional<kernels::Problem> to_problem(const ProblemQuery& q) noexcept;

}  // namespace vktune::runtime
