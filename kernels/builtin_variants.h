// The variants an engine runs when nothing is tuned ("fixed routing": a 64-lane GEMV for
// decode, a 4x4 register tile otherwise), the baseline every tuned speedup is quoted against.
// Per op in order of preference: the first whose constraints hold for a problem serves it. The
// runtime's built-in answers and the tuner's baseline come from this one list.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "kernels/problem.h"

namespace vktune::kernels {

struct BuiltinVariant {
  std::string_view family;      // the base name: the same rule serves every dtype
  std::string_view knobs_json;  // every knob of the family, as Family::knobs_from_json reads it
  // Serves problems up to this M though the family could take more (engines route their GEMV
  // to decode only); 0: whatever the family's constraints allow.
  uint32_t max_m = 0;
};

std::span<const BuiltinVariant> builtin_variants(Op op);

class Family;
// The family instance of `variant` for problems of `dtype` ("q4gsw_gemv_f16" for f16).
const Family& builtin_family(const BuiltinVariant& variant, DType dtype);

}  // namespace vktune::kernels
