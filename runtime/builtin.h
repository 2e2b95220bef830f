// Query validation and the built-in routing of docs/variants.md: the last fallback, and the
// whole answer when no database is available.
#pragma once

#include <string_view>

#include "runtime/selection.h"

namespace vktune::runtime {

// Returns an empty view when `q` is a valid problem, else a static message naming the field
// and the fix ("K is odd; q4gsw needs an even K").
std::string_view validate(const ProblemQuery& q) noexcept;

// Fills `out` with the built-in variant for a valid `q` (status ok, device_match and
// shape_match builtin) of its dtype, or status no_match when no rule covers the shape, or
// invalid_query for an unknown op or dtype.
void select_builtin(const ProblemQuery& q, Selection& out) noexcept;

// The key of the built-in variant for `q` (the fixed routing every speedup is quoted
// against), or an empty view when no rule covers it. Static storage.
std::string_view builtin_key(const ProblemQuery& q) noexcept;

}  // namespace vktune::runtime
