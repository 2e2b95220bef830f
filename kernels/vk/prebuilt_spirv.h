// SPIR-V modules that only the newer shader compiler (tools/setup-newer-shaderc.sh) builds,
// shipped prebuilt in kernels/prebuilt/ and embedded at build time, so a build with Debian 12's
// shaderc still has every family. Each module is keyed by a hash of its GLSL as the compiler
// reads it (the source with its includes), its defines and its target environment: a module
// whose GLSL has changed since it was built no longer matches and is never served.
// tools/regenerate-prebuilt-spirv.sh writes them; tests/kernels/prebuilt_spirv_test.cpp fails
// on a stale or missing one.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "kernels/compiler_support.h"
#include "kernels/shader_spec.h"
#include "kernels/vk/shader_compiler.h"

namespace vktune {

// The manifest's first line: its magic and version.
inline constexpr std::string_view kPrebuiltManifestHeader = "vktune-prebuilt-spirv 1";
// Where the modules live in the source tree, and what rewrites them.
inline constexpr std::string_view kPrebuiltDir = "kernels/prebuilt";
inline constexpr std::string_view kPrebuiltRegenerate = "tools/regenerate-prebuilt-spirv.sh";

// "vulkan1.2": the target environment as the manifest and glslc's --target-env name it.
std::string_view target_env_name(TargetEnv env);

// One module as the catalogue asks for it: an embedded source, its defines, its target.
struct ModuleSpec {
  std::string file;
  Defines defines;
  TargetEnv env = TargetEnv::vulkan_1_2;
  uint32_t extensions = 0;  // the GlslExtension bits it needs
  friend bool operator==(const ModuleSpec&, const ModuleSpec&) = default;
};

// The hash a module is keyed by: `text` with every #include it names replaced by that embedded
// file (recursively), then the target environment and the defines in order. 16 hex digits.
std::string prebuilt_module_hash(std::string_view text, const Defines& defines, TargetEnv env);
// The same for an embedded source; throws std::out_of_range for an unknown file.
std::string prebuilt_module_hash(const ModuleSpec& module);

// Every module some variant of the catalogue compiles that needs a GLSL extension beyond
// Debian 12's shaderc (Requirements::compiler), each once, in the registry's order; modules
// compiled for Vulkan 1.2 or newer (ShaderCompiler's default target), as the tuner does.
std::vector<ModuleSpec> modules_needing_newer_compiler();

struct PrebuiltModule {
  std::string spv;  // its file name in kernels/prebuilt/
  ModuleSpec module;
  std::string hash;  // prebuilt_module_hash of the GLSL it was compiled from
  std::span<const uint32_t> words;
};

// The manifest's modules, in its order. Parsed once; thread-safe.
std::span<const PrebuiltModule> prebuilt_modules();
// The compiler the modules were built with, as the manifest records it.
std::string_view prebuilt_compiler();

// The prebuilt module of `text` (an embedded file's text, or given directly) with `defines` for
// `env`, or nullptr where none was built from this very GLSL (or the text includes a file no
// embedded source has).
const PrebuiltModule* find_prebuilt(std::string_view text, const Defines& defines, TargetEnv env);

// The GLSL extensions whose every module (modules_needing_newer_compiler) is prebuilt from the
// current sources: what this build can run without a compiler that accepts them. Computed once;
// thread-safe.
const kernels::CompilerSupport& prebuilt_support();

}  // namespace vktune
