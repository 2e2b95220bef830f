// Constraint checks and enum names for Selection.
#include "runtime/selection.h"

namespace vktune::runtime {
namespace {
bool divides(uint32_t multiple, uint32_t value) noexcept {
  if (multiple <= 1) return true;
  // Multiples are nearly always powers of two: a mask, not a division, on the ranking path
  // (which checks a candidate on every neighbouring problem).
  if ((multiple & (multiple - 1)) == 0) return (value & (multiple - 1)) == 0;
  return value % multiple == 0;
}
}  // namespace

bool Constraints::allows(const ProblemQuery& q) const noexcept {
  return divides(k_multiple, q.k) && divides(gs_multiple, q.group_size) &&
         divides(n_multiple, q.n) && q.m >= m_min && (m_max == 0 || q.m <= m_max);
}

std::string_view to_string(DeviceMatch m) noexcept {
  switch (m) {
    case DeviceMatch::exact: return "exact";
    case DeviceMatch::other_driver: return "other_driver";
    case DeviceMatch::same_vendor_type: return "same_vendor_type";
    case DeviceMatch::builtin: return "builtin";
  }
  return "?";
}

std::string_view to_string(ShapeMatch m) noexcept {
  switch (m) {
    case ShapeMatch::exact: return "exact";
    case ShapeMatch::nearest: return "nearest";
    case ShapeMatch::builtin: return "builtin";
    case ShapeMatch::ranked: return "ranked_neighbours";
  }
  return "?";
}

std::string_view to_string(Status s) noexcept {
  switch (s) {
    case Status::ok: return "ok";
    case Status::invalid_query: return "invalid_query";
    case Status::no_match: return "no_match";
  }
  return "?";
}

}  // namespace vktune::runtime
