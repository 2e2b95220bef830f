// The SPIR-V disk cache: a second compiler reads what the first wrote; other defines, a torn file
// and a file of another key are misses, never the wrong binary; a failed store is counted, not
// thrown; VKTUNE_CACHE_DIR picks (or turns off) the folder.
#include "kernels/vk/spirv_disk_cache.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

#include "kernels/vk/shader_compiler.h"
#include "tests/kernels/value_shader.h"
#include "tests/temp_dir.h"

namespace vktune {
namespace {

using test::kValueShader;

std::vector<std::filesystem::path> files_in(const std::filesystem::path& dir) {
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) files.push_back(entry.path());
  return files;
}

TEST(SpirvDiskCacheTest, SecondCompilerReadsWhatTheFirstWrote) {
  testing::TempDir dir;
  const SpirvDiskCache disk(dir.path() / "spirv");
  ShaderCompiler first(TargetEnv::vulkan_1_2, &disk);
  const auto compiled = first.compile_text("v.comp", kValueShader, {{"VALUE", "1.0"}}, "v1");
  EXPECT_EQ(first.disk_hits(), 0u);
  ASSERT_EQ(files_in(disk.dir()).size(), 1u);  // no temporary file left behind

  ShaderCompiler second(TargetEnv::vulkan_1_2, &disk);
  EXPECT_EQ(*second.compile_text("v.comp", kValueShader, {{"VALUE", "1.0"}}, "v1"), *compiled);
  EXPECT_EQ(second.disk_hits(), 1u);
  // Other defines, another target: other binaries, compiled.
  EXPECT_NE(*second.compile_text("v.comp", kValueShader, {{"VALUE", "2.0"}}, "v2"), *compiled);
  ShaderCompiler newer(TargetEnv::vulkan_1_3, &disk);
  newer.compile_text("v.comp", kValueShader, {{"VALUE", "1.0"}}, "v1");
  EXPECT_EQ(second.disk_hits() + newer.disk_hits(), 1u);
  EXPECT_EQ(files_in(disk.dir()).size(), 3u);
}

TEST(SpirvDiskCacheTest, TornOrForeignFilesAreMisses) {
  testing::TempDir dir;
  const SpirvDiskCache disk(dir.path());
  const std::vector<uint32_t> spirv = {0x07230203u, 0x00010500u, 1, 2, 3};
  disk.store("key a", spirv);
  ASSERT_EQ(disk.load("key a"), spirv);
  const std::filesystem::path file = files_in(dir.path()).front();

  // The file of "key a" under the name "key b" hashes to: its key does not match.
  disk.store("key b", spirv);
  std::filesystem::path file_b;
  for (const auto& f : files_in(dir.path())) {
    if (f != file) file_b = f;
  }
  std::filesystem::copy_file(file, file_b, std::filesystem::copy_options::overwrite_existing);
  EXPECT_FALSE(disk.load("key b"));

  // Torn in the middle of the binary: not a whole number of words.
  std::filesystem::resize_file(file, std::filesystem::file_size(file) - 3);
  EXPECT_FALSE(disk.load("key a"));
  // Not SPIR-V at all.
  disk.store("key a", {1, 2, 3});
  EXPECT_FALSE(disk.load("key a"));
  // A store replaces the bad file.
  disk.store("key a", spirv);
  EXPECT_EQ(disk.load("key a"), spirv);
  EXPECT_EQ(disk.failed_stores(), 0u);
}

TEST(SpirvDiskCacheTest, FailedStoreIsCountedNotThrown) {
  testing::TempDir dir;
  std::ofstream(dir.file("plain")) << "a file, not a folder";
  const SpirvDiskCache disk(dir.path() / "plain" / "spirv");
  ShaderCompiler compiler(TargetEnv::vulkan_1_2, &disk);
  EXPECT_NO_THROW(compiler.compile_text("v.comp", kValueShader, {{"VALUE", "1.0"}}, "v1"));
  EXPECT_EQ(disk.failed_stores(), 1u);
}

TEST(SpirvDiskCacheTest, FolderFromTheEnvironment) {
  const char* home = std::getenv("HOME");
  const std::string saved_home = home != nullptr ? home : "";
  setenv("VKTUNE_CACHE_DIR", "/somewhere", 1);
  EXPECT_EQ(SpirvDiskCache::default_dir(), std::filesystem::path("/somewhere/spirv"));
  setenv("VKTUNE_CACHE_DIR", "off", 1);
  EXPECT_FALSE(SpirvDiskCache::default_dir());
  unsetenv("VKTUNE_CACHE_DIR");
  setenv("XDG_CACHE_HOME", "/xdg", 1);
  EXPECT_EQ(SpirvDiskCache::default_dir(), std::filesystem::path("/xdg/vktune/spirv"));
  unsetenv("XDG_CACHE_HOME");
  setenv("HOME", "/home/someone", 1);
  EXPECT_EQ(SpirvDiskCache::default_dir(),
            std::filesystem::path("/home/someone/.cache/vktune/spirv"));
  if (home != nullptr) setenv("HOME", saved_home.c_str(), 1);
}

TEST(SpirvDiskCacheTest, IdentityNamesTheCompiler) {
  const std::string identity = shader_compiler_identity();
  EXPECT_EQ(identity.rfind("shaderc ", 0), 0u) << identity;
  EXPECT_NE(identity.find("SPIRV-Tools"), std::string::npos) << identity;
}

}  // namespace
}  // namespace vktune
