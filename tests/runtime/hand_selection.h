// A hand-made ok Selection of one variant (no SPIR-V: the tests compile it), for the dispatch
// tests that plan or run variants the built-in rules never name. The strings are literals.
#pragma once

#include <string_view>

#include "runtime/selection.h"

namespace vktune::runtime::test {

inline Selection hand_selection(std::string_view family, std::string_view variant_key,
                                std::string_view knobs_json) {
  Selection s;
  s.status = Status::ok;
  s.family = family;
  s.variant_key = variant_key;
  s.knobs_json = knobs_json;
  return s;
}

}  // namespace vktune::runtime::test
