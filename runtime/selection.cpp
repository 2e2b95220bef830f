// Enum names for Selection.
#include "runtime/selection.h"

namespace vktune::runtime {

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
