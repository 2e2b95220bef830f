// GLSL -> SPIR-V: errors name variant, file and line; the cache keys on defines, never on
// specialisation constants, and compiles each module once however many threads ask.
#include "kernels/vk/shader_compiler.h"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "tests/kernels/value_shader.h"

namespace vktune {
namespace {

using test::kValueShader;

TEST(ShaderCompilerTest, ProducesSpirvAndCachesPerDefines) {
  ShaderCompiler compiler;
  auto one = compiler.compile_text("v.comp", kValueShader, {{"VALUE", "1.0"}}, "v1");
  ASSERT_GT(one->size(), 5u);
  EXPECT_EQ(one->front(), 0x07230203u);  // SPIR-V magic
  EXPECT_EQ(compiler.compile_text("v.comp", kValueShader, {{"VALUE", "1.0"}}, "v1"), one);
  auto two = compiler.compile_text("v.comp", kValueShader, {{"VALUE", "2.0"}}, "v2");
  EXPECT_NE(two, one);
  EXPECT_EQ(compiler.cache_size(), 2u);
}

TEST(ShaderCompilerTest, SpecsDifferingOnlyInSpecialisationShareOneModule) {
  ShaderCompiler compiler;
  const kernels::ShaderSpec a{"q4gsw_tiled.comp", {{"PACKED", "0"}}, {{0, 64}, {1, 4}}};
  kernels::ShaderSpec b = a;
  b.specialization = {{0, 128}, {1, 8}};
  EXPECT_EQ(compiler.compile(a, "a"), compiler.compile(b, "b"));
  b.defines = {{"PACKED", "1"}};
  EXPECT_NE(compiler.compile(a, "a"), compiler.compile(b, "b"));
  EXPECT_EQ(compiler.compiled(), 2u);
}

TEST(ShaderCompilerTest, ThreadsAskingForOneModuleCompileItOnce) {
  ShaderCompiler compiler;
  std::vector<std::shared_ptr<const Spirv>> got(8);
  std::vector<std::thread> threads;
  for (size_t i = 0; i < got.size(); ++i) {
    threads.emplace_back([&, i] {
      got[i] = compiler.compile_text("v.comp", kValueShader, {{"VALUE", "3.0"}}, "v3");
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(compiler.compiled(), 1u);
  for (const auto& spirv : got) EXPECT_EQ(spirv, got.front());
}

TEST(ShaderCompilerTest, AFailedModuleIsTriedAgainAndNamesEachVariant) {
  ShaderCompiler compiler;
  for (const char* variant : {"first[wg=64]", "second[wg=128]"}) {
    try {
      compiler.compile_text("broken.comp", kValueShader, {}, variant);  // VALUE undefined
      FAIL() << "expected a compile error";
    } catch (const CompileError& e) {
      EXPECT_NE(std::string(e.what()).find(variant), std::string::npos) << e.what();
    }
  }
  EXPECT_EQ(compiler.cache_size(), 0u);
}

TEST(ShaderCompilerTest, ErrorNamesVariantFileAndLine) {
  ShaderCompiler compiler;
  try {
    compiler.compile_text("broken.comp", kValueShader, {}, "q4gsw_test[wg=64]");  // VALUE undefined
    FAIL() << "expected a compile error";
  } catch (const CompileError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("q4gsw_test[wg=64]"), std::string::npos) << what;
    EXPECT_NE(what.find("broken.comp:4"), std::string::npos) << what;
    EXPECT_NE(what.find("VALUE"), std::string::npos) << what;
  }
}

TEST(ShaderCompilerTest, UnknownEmbeddedFileAndIncludeAreErrors) {
  ShaderCompiler compiler;
  EXPECT_THROW(compiler.compile("no_such_kernel.comp", {}, "x"), CompileError);
  try {
    compiler.compile_text("inc.comp", "#version 450\n#extension GL_GOOGLE_include_directive : require\n"
                          "#include \"missing.glsl\"\nvoid main() {}\n", {}, "inc");
    FAIL() << "expected a compile error";
  } catch (const CompileError& e) {
    EXPECT_NE(std::string(e.what()).find("missing.glsl"), std::string::npos) << e.what();
  }
}

TEST(ShaderCompilerTest, ContentHashIsStableAndSensitive) {
  EXPECT_EQ(content_hash("abc"), content_hash("abc"));
  EXPECT_NE(content_hash("abc"), content_hash("abd"));
  EXPECT_EQ(content_hash("").size(), 16u);
}

}  // namespace
}  // namespace vktune
