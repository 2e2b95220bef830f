// Shader sources (kernels/glsl/*.comp and *.glsl) compiled into the binary at build time.
#pragma once

#include <optional>
#include <span>
#include <string_view>

namespace vktune {

struct EmbeddedSource {
  std::string_view name;  // file name, e.g. "q4gsw_gemv.comp"
  std::string_view text;
};

std::span<const EmbeddedSource> embedded_sources() noexcept;

// The text of the embedded file `name`, if there is one.
std::optional<std::string_view> embedded_source(std::string_view name) noexcept;

}  // namespace vktune
