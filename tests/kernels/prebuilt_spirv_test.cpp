// kernels/prebuilt/ against the GLSL and the catalogue: every module is compiled from the
// current source (a stale one fails, naming its file and the command that rewrites it), every
// module a variant needs the newer compiler for is there, and a build whose shaderc rejects them
// serves them. With VKTUNE_REGENERATE=1, in a build linked with the newer compiler
// (tools/regenerate-prebuilt-spirv.sh), the test rewrites the folder first.
#include "kernels/vk/prebuilt_spirv.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "kernels/vk/compiler_probe.h"
#include "kernels/vk/embedded_sources.h"
#include "kernels/vk/spirv_validate.h"

namespace vktune {
namespace {

std::string describe(const ModuleSpec& m) {
  std::string out = m.file + " (" + std::string(target_env_name(m.env));
  for (const auto& [name, value] : m.defines) out += " " + name + "=" + value;
  return out + ")";
}

std::string regenerate_hint() {
  return "; rewrite kernels/prebuilt/ with " + std::string(kPrebuiltRegenerate) +
         " (it needs the newer compiler, tools/setup-newer-shaderc.sh)";
}

std::string text_of(const ModuleSpec& m) { return std::string(*embedded_source(m.file)); }

void regenerate() {
  for (const kernels::GlslExtensionDesc& e : kernels::glsl_extension_descs()) {
    ASSERT_TRUE(probed_compiler_support().accepts(e.extension))
        << "VKTUNE_REGENERATE=1 needs a build linked with a compiler that accepts " << e.name
        << " (-DVKTUNE_SHADERC_PREFIX)";
  }
  const std::filesystem::path dir = std::filesystem::path(VKTUNE_SOURCE_DIR) / kPrebuiltDir;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() == ".spv") std::filesystem::remove(entry.path());
  }
  std::ofstream manifest(dir / "manifest.txt");
  manifest << kPrebuiltManifestHeader << "\n"
           << "# Written by " << kPrebuiltRegenerate << ", not by hand.\n"
           << "# compiler: " << shader_compiler_identity() << "\n"
           << "# module<TAB>source<TAB>target<TAB>defines<TAB>hash of the GLSL with its includes, "
              "target and defines\n";
  for (const ModuleSpec& m : modules_needing_newer_compiler()) {
    ShaderCompiler compiler(m.env);
    const std::string text = text_of(m);
    const Spirv words = *compiler.compile_text(m.file, text, m.defines, describe(m));
    const std::string hash = prebuilt_module_hash(m);
    const std::string spv = std::filesystem::path(m.file).stem().string() + "-" + hash + ".spv";
    std::ofstream(dir / spv, std::ios::binary)
        .write(reinterpret_cast<const char*>(words.data()),
               static_cast<std::streamsize>(words.size() * sizeof(uint32_t)));
    std::string defines;
    for (const auto& [name, value] : m.defines) {
      defines += (defines.empty() ? "" : " ") + name + "=" + value;
    }
    manifest << spv << "\t" << m.file << "\t" << target_env_name(m.env) << "\t"
             << (defines.empty() ? "-" : defines) << "\t" << hash << "\n";
  }
}

TEST(PrebuiltSpirv, EveryModuleIsCompiledFromTheCurrentGlsl) {
  if (std::getenv("VKTUNE_REGENERATE") != nullptr) {
    regenerate();
    GTEST_SKIP() << "kernels/prebuilt/ rewritten: rebuild and run again";
  }
  for (const PrebuiltModule& p : prebuilt_modules()) {
    EXPECT_EQ(p.hash, prebuilt_module_hash(p.module))
        << "kernels/prebuilt/" << p.spv << " was compiled from an older " << describe(p.module)
        << regenerate_hint();
  }
}

TEST(PrebuiltSpirv, EveryModuleOnlyTheNewerCompilerBuildsIsPrebuilt) {
  const std::vector<ModuleSpec> needed = modules_needing_newer_compiler();
  ASSERT_FALSE(needed.empty());
  for (const ModuleSpec& m : needed) {
    EXPECT_NE(find_prebuilt(text_of(m), m.defines, m.env), nullptr)
        << describe(m) << " is not in kernels/prebuilt/" << regenerate_hint();
  }
  // And nothing beside them: a module no variant asks for any more is dead weight.
  for (const PrebuiltModule& p : prebuilt_modules()) {
    EXPECT_TRUE(std::any_of(needed.begin(), needed.end(),
                            [&](const ModuleSpec& m) {
                              return m.file == p.module.file && m.defines == p.module.defines &&
                                     m.env == p.module.env;
                            }))
        << "kernels/prebuilt/" << p.spv << " is a module no variant compiles" << regenerate_hint();
  }
}

// What follows from a complete set: the families that need the newer compiler are available in
// every build.
TEST(PrebuiltSpirv, TheyMakeEveryExtensionAvailable) {
  for (const kernels::GlslExtensionDesc& e : kernels::glsl_extension_descs()) {
    EXPECT_TRUE(prebuilt_support().accepts(e.extension)) << e.name;
    EXPECT_TRUE(linked_compiler_support().accepts(e.extension)) << e.name;
  }
}

TEST(PrebuiltSpirv, EveryModuleValidatesAndStaysSmall) {
  for (const PrebuiltModule& p : prebuilt_modules()) {
    const std::span<const uint8_t> bytes(reinterpret_cast<const uint8_t*>(p.words.data()),
                                         p.words.size_bytes());
    EXPECT_EQ(kernels::spirv_validation_error(bytes), "") << p.spv;
    EXPECT_LT(bytes.size(), 1u << 20) << p.spv << " (no file in the tree is 1 MiB or more)";
  }
}

// The compiler serves a prebuilt module where, and only where, its own shaderc rejects the GLSL
// and the GLSL is what the module was compiled from.
TEST(PrebuiltSpirv, TheCompilerServesThemForTheGlslTheyWereBuiltFrom) {
  const ModuleSpec m = modules_needing_newer_compiler().front();
  const std::string text = text_of(m);
  ShaderCompiler compiler(m.env);
  const Spirv words = *compiler.compile_text(m.file, text, m.defines, describe(m));
  const PrebuiltModule* prebuilt = find_prebuilt(text, m.defines, m.env);
  ASSERT_NE(prebuilt, nullptr);
  if ((probed_compiler_support().extensions & m.extensions) == m.extensions) {
    EXPECT_EQ(compiler.prebuilt(), 0u);  // compiled here: the newer compiler
    EXPECT_EQ(compiler.compiled(), 1u);
  } else {
    EXPECT_EQ(compiler.prebuilt(), 1u);
    EXPECT_EQ(compiler.compiled(), 0u);
    EXPECT_TRUE(
        std::equal(words.begin(), words.end(), prebuilt->words.begin(), prebuilt->words.end()));
  }
  // Any edit of the GLSL, or another define, is another module.
  EXPECT_EQ(find_prebuilt(text + "\n// edited\n", m.defines, m.env), nullptr);
  Defines other = m.defines;
  other.emplace_back("EXTRA", "1");
  EXPECT_EQ(find_prebuilt(text, other, m.env), nullptr);
}

// The key is the text the compiler reads: each include replaced by its file's text, so a module
// is stale when a file it includes changes; then the target and the defines.
TEST(PrebuiltSpirv, TheKeyIsTheGlslWithItsIncludesTargetAndDefines) {
  const std::string with = "#version 450\n#include \"float_type.glsl\"\nvoid main() {}\n";
  const std::string expanded = "#version 450\n// float_type.glsl\n" +
                               std::string(*embedded_source("float_type.glsl")) +
                               "\nvoid main() {}\n";
  EXPECT_EQ(prebuilt_module_hash(with, {}, TargetEnv::vulkan_1_2),
            prebuilt_module_hash(expanded, {}, TargetEnv::vulkan_1_2));
  EXPECT_NE(prebuilt_module_hash(with, {}, TargetEnv::vulkan_1_2),
            prebuilt_module_hash(with, {}, TargetEnv::vulkan_1_3));
  EXPECT_NE(prebuilt_module_hash(with, {{"A", "1"}}, TargetEnv::vulkan_1_2),
            prebuilt_module_hash(with, {{"A", "2"}}, TargetEnv::vulkan_1_2));
  EXPECT_THROW(prebuilt_module_hash("#include \"no_such.glsl\"\n", {}, TargetEnv::vulkan_1_2),
               std::out_of_range);
}

}  // namespace
}  // namespace vktune
