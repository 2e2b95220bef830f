// What the shader compiler vktune links accepts beyond Debian 12's shaderc, as data: the GLSL
// extensions some families need (Requirements::compiler) and the set a compiler was found to
// accept (kernels/vk/compiler_probe.h finds it). Plain data, so legality stays pure.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

namespace vktune::kernels {

// One bit per optional GLSL extension.
enum class GlslExtension : uint32_t {
  integer_dot_product = 1u << 0,     // GL_EXT_integer_dot_product (dotPacked4x8EXT, ...)
  cooperative_matrix_khr = 1u << 1,  // GL_KHR_cooperative_matrix
  cooperative_matrix2_nv = 1u << 2,  // GL_NV_cooperative_matrix2
};

struct GlslExtensionDesc {
  GlslExtension extension;
  std::string_view name;  // as a shader's #extension line names it
  // The Vulkan 1.x a shader using it must target: GL_NV_cooperative_matrix2 needs SPIR-V 1.6,
  // so Vulkan 1.3; the others compile for vktune's usual 1.2.
  uint32_t vulkan_minor;
};

// Every GlslExtension, in bit order.
std::span<const GlslExtensionDesc> glsl_extension_descs();

// The optional extensions a shader compiler accepts. The default, none, is Debian 12's shaderc
// (2023.2, glslang 12), the compiler CI builds with.
struct CompilerSupport {
  uint32_t extensions = 0;  // GlslExtension bits

  bool accepts(GlslExtension e) const noexcept {
    return (extensions & static_cast<uint32_t>(e)) != 0;
  }
  CompilerSupport& add(GlslExtension e) noexcept {
    extensions |= static_cast<uint32_t>(e);
    return *this;
  }
  friend bool operator==(const CompilerSupport&, const CompilerSupport&) = default;
};

// What to do when the linked compiler lacks an extension: the hint closing every such reason.
inline constexpr std::string_view kNewerCompilerHint =
    "build the newer one with tools/setup-newer-shaderc.sh and configure with "
    "-DVKTUNE_SHADERC_PREFIX=<its prefix>";

}  // namespace vktune::kernels
