// Where vktune keeps what it caches between runs on this machine (shader binaries, the
// driver's pipeline caches), one folder per kind.
#pragma once

#include <filesystem>
#include <optional>
#include <string_view>

namespace vktune {

// $VKTUNE_CACHE_DIR/<kind>, else $XDG_CACHE_HOME/vktune/<kind>, else $HOME/.cache/vktune/<kind>;
// none when VKTUNE_CACHE_DIR is "off" or no variable is set.
std::optional<std::filesystem::path> cache_dir(std::string_view kind);

}  // namespace vktune
