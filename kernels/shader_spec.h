// What a variant compiles: an embedded source, the defines of the knobs that shape its code, and
// the specialisation constants of the knobs that only size it. Plain data, so the catalogue
// describes shaders without linking the compiler.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace vktune {

using Defines = std::vector<std::pair<std::string, std::string>>;

// One specialisation constant: the shader's `layout(constant_id = constant_id)` (or
// `local_size_x_id`) takes `value` when the pipeline is created. The same layout as the C API's
// vktune_spec_constant.
struct SpecConstant {
  uint32_t constant_id = 0;
  uint32_t value = 0;
  friend bool operator==(const SpecConstant&, const SpecConstant&) = default;
};
// In ascending constant_id, each id once.
using Specialization = std::vector<SpecConstant>;

}  // namespace vktune

namespace vktune::kernels {

// A family's source() decides each knob's kind. A knob that changes the code's structure (a
// layout, a code path, an #if) is a define: each value is its own SPIR-V module. A knob that only
// sizes tiles, loops, arrays or the workgroup is a specialisation constant: one module serves
// every value, and the variant is chosen when its pipeline is created.
struct ShaderSpec {
  std::string file;               // embedded source, e.g. "q4gsw_gemv.comp"
  Defines defines;                // the structural knobs: what the SPIR-V module is keyed by
  Specialization specialization;  // the sizing knobs: given at pipeline creation
  // The Vulkan 1.x the SPIR-V targets: 2, or 3 for a GLSL extension that needs SPIR-V 1.6
  // (GlslExtensionDesc::vulkan_minor; Family::shader sets it).
  uint32_t vulkan_minor = 2;
};

}  // namespace vktune::kernels
