// Which optional GLSL extensions the shader compiler linked into this build accepts, found by
// compiling a tiny shader that uses each one (Debian 12's shaderc accepts none of them; the one
// tools/setup-newer-shaderc.sh builds accepts all), and which this build can use all the same
// because every module that needs them ships prebuilt (kernels/vk/prebuilt_spirv.h).
// Family::legality reads the answer, so a family this build cannot get SPIR-V for is reported
// unavailable with the reason, never compiled.
#pragma once

#include <string_view>

#include "kernels/compiler_support.h"
#include "kernels/vk/shader_compiler.h"

namespace vktune {

// The extensions this build's shader modules may use: those the linked compiler accepts and
// those whose every module is prebuilt from the current GLSL. Computed once per process;
// thread-safe.
const kernels::CompilerSupport& linked_compiler_support();

// The linked compiler's own answer: probes once per process (three tiny compiles) and returns
// the cached answer afterwards. Thread-safe. Never throws: an extension whose probe fails to
// compile is not accepted.
const kernels::CompilerSupport& probed_compiler_support();

// The probe shader of `extension`: a compute shader that enables it and uses what vktune
// would (dotPacked4x8EXT, a cooperative matrix multiply-add, a tensor-layout load). For tests.
std::string_view compiler_probe_source(kernels::GlslExtension extension);

}  // namespace vktune
