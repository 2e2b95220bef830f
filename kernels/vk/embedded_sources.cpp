// Lookup over the generated table of embedded shader sources.
#include "kernels/vk/embedded_sources.h"

namespace vktune {

std::optional<std::string_view> embedded_source(std::string_view name) noexcept {
  for (const EmbeddedSource& s : embedded_sources()) {
    if (s.name == name) return s.text;
  }
  return std::nullopt;
}

}  // namespace vktune
