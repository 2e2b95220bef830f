// What a variant compiles: an embedded source and the defines its knobs become. Plain data, so
// the catalogue describes shaders without linking the compiler.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace vktune {

using Defines = std::vector<std::pair<std::string, std::string>>;

}  // namespace vktune

namespace vktune::kernels {

struct ShaderSpec {
  std::string file;  // embedded source, e.g. "q4gsw_gemv.comp"
  Defines defines;   // one per knob that shapes the code
  // The Vulkan 1.x the SPIR-V targets: 2, or 3 for a GLSL extension that needs SPIR-V 1.6
  // (GlslExtensionDesc::vulkan_minor; Family::shader sets it).
  uint32_t vulkan_minor = 2;
};

}  // namespace vktune::kernels
