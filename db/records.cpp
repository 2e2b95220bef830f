// Status names as stored in the measurements.status column (and checked by its CHECK).
#include "db/records.h"

#include <array>

namespace vktune::db {
namespace {
constexpr std::array<std::string_view, 6> kStatusNames = {
    "ok", "wrong_result", "compile_error", "unsupported", "timeout", "device_lost"};
}

std::string_view to_string(Status status) noexcept {
  return kStatusNames[static_cast<size_t>(status)];
}

std::optional<Status> parse_status(std::string_view name) noexcept {
  for (size_t i = 0; i < kStatusNames.size(); ++i) {
    if (kStatusNames[i] == name) return static_cast<Status>(i);
  }
  return std::nullopt;
}

}  // namespace vktune::db
