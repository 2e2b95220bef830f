// cache_dir: the environment's choice of folder, first set variable wins.
#include "kernels/vk/cache_dir.h"

#include <cstdlib>

namespace vktune {
namespace {

std::optional<std::filesystem::path> from_env(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr || *value == '\0') return std::nullopt;
  return std::filesystem::path(value);
}

}  // namespace

std::optional<std::filesystem::path> cache_dir(std::string_view kind) {
  if (auto dir = from_env("VKTUNE_CACHE_DIR")) {
    if (*dir == "off") return std::nullopt;
    return *dir / kind;
  }
  if (auto dir = from_env("XDG_CACHE_HOME")) return *dir / "vktune" / kind;
  if (auto dir = from_env("HOME")) return *dir / ".cache" / "vktune" / kind;
  return std::nullopt;
}

}  // namespace vktune
