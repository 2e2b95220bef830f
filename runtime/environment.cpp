// The environment switches: read once, applied when the layers are built, so select() never
// reads the environment.
#include "runtime/environment.h"

#include <cstdlib>
#include <string_view>

namespace vktune::runtime {
namespace {

bool switched_on(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' && std::string_view(value) != "0";
}

std::vector<std::string> split_paths(std::string_view list) {
  std::vector<std::string> out;
  while (!list.empty()) {
    const size_t colon = list.find(':');
    const std::string_view path = list.substr(0, colon);
    if (!path.empty()) out.emplace_back(path);  // "a::b" and a trailing ':' add nothing
    if (colon == std::string_view::npos) break;
    list.remove_prefix(colon + 1);
  }
  return out;
}

}  // namespace

Environment read_environment() {
  Environment env;
  if (const char* db = std::getenv("VKTUNE_DB")) env.db_paths = split_paths(db);
  env.options.force_builtin = switched_on("VKTUNE_FORCE_BUILTIN");
  env.options.log = switched_on("VKTUNE_LOG");
  return env;
}

std::shared_ptr<const Layers> layers_from_environment(
    std::vector<std::shared_ptr<const Snapshot>> app_top_first, std::string* error) noexcept {
  try {
    const Environment env = read_environment();
    std::vector<std::shared_ptr<const Snapshot>> layers;
    for (const std::string& path : env.db_paths) {
      std::string why;
      auto snapshot = Snapshot::load(path, &why);
      if (!snapshot) {
        if (error != nullptr) *error = "VKTUNE_DB: " + why;
        return nullptr;
      }
      layers.push_back(std::move(snapshot));
    }
    for (auto& snapshot : app_top_first) layers.push_back(std::move(snapshot));
    return std::make_shared<const Layers>(std::move(layers), env.options);
  } catch (...) {
    if (error != nullptr) *error = "out of memory while building the layers";
    return nullptr;
  }
}

}  // namespace vktune::runtime
