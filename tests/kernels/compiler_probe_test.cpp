// The probe of the linked shader compiler: Debian 12's shaderc accepts none of the optional
// GLSL extensions, the newer one (-DVKTUNE_SHADERC_PREFIX, VKTUNE_NEWER_SHADERC=1 here) all of
// them. No GPU: it only compiles.
#include "kernels/vk/compiler_probe.h"

#include <gtest/gtest.h>

#include "kernels/vk/shader_compiler.h"

namespace vktune {
namespace {

TEST(CompilerProbe, FindsWhatTheLinkedCompilerAccepts) {
  const kernels::CompilerSupport& support = probed_compiler_support();
  for (const kernels::GlslExtensionDesc& e : kernels::glsl_extension_descs()) {
#if VKTUNE_NEWER_SHADERC
    EXPECT_TRUE(support.accepts(e.extension)) << e.name << " with the newer shaderc";
#else
    EXPECT_FALSE(support.accepts(e.extension)) << e.name << " with Debian 12's shaderc";
#endif
  }
}

TEST(CompilerProbe, ProbesOnceAndCaches) {
  EXPECT_EQ(&probed_compiler_support(), &probed_compiler_support());
}

// Each probe shader enables its own extension and uses it: the probe cannot pass on a compiler
// that knows the name only, and a refusal names the extension.
TEST(CompilerProbe, EachProbeUsesItsExtension) {
  for (const kernels::GlslExtensionDesc& e : kernels::glsl_extension_descs()) {
    ShaderCompiler compiler(target_env(e.vulkan_minor));
    const std::string_view source = compiler_probe_source(e.extension);
    EXPECT_NE(source.find("#extension " + std::string(e.name) + " : require"),
              std::string_view::npos)
        << e.name;
    if (probed_compiler_support().accepts(e.extension)) {
      EXPECT_FALSE(compiler.compile_text("probe.comp", source, {}, e.name)->empty());
    } else {
      try {
        compiler.compile_text("probe.comp", source, {}, e.name);
        ADD_FAILURE() << e.name << " compiled although the probe found it refused";
      } catch (const CompileError& error) {
        EXPECT_NE(std::string(error.what()).find(e.name), std::string::npos) << error.what();
      }
    }
  }
}

}  // namespace
}  // namespace vktune
