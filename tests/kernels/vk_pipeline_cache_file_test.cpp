// The driver's pipeline cache on disk: a saved cache seeds the next one on the same device and
// its pipelines compute what cold ones do; a foreign, truncated or corrupt file is ignored with
// a warning, never handed to the driver.
#include "kernels/vk/pipeline_cache_file.h"

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "kernels/vk/shader_compiler.h"
#include "kernels/vk/buffer.h"
#include "kernels/vk/command_buffer.h"
#include "kernels/vk/pipeline.h"
#include "tests/kernels/vulkan_fixture.h"
#include "tests/temp_dir.h"

namespace vktune::test {
namespace {

// y[i] = x[i] * SCALE + i, SCALE a specialisation constant.
constexpr const char* kScale = R"(#version 450
layout(local_size_x = 64) in;
layout(constant_id = 0) const uint SCALE = 1;
layout(std430, binding = 0) readonly buffer X { float x[]; };
layout(std430, binding = 1) writeonly buffer Y { float y[]; };
void main() {
  uint i = gl_GlobalInvocationID.x;
  y[i] = x[i] * float(SCALE) + float(i);
}
)";
constexpr uint32_t kN = 256;

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

class PipelineCacheFileTest : public VulkanFixture {
 protected:
  // The shader's output for SCALE 3, its pipeline created through `cache`.
  std::vector<float> run(const vk::PipelineCacheFile& cache, bool* from_cache = nullptr) {
    auto spirv = compiler_.compile_text("scale.comp", kScale, {}, "scale");
    vk::PipelineDesc desc{"scale", *spirv, 2, 0, {{0, 3}}};
    desc.driver_cache = cache.get();
    const vk::ComputePipeline pipeline = vk::ComputePipeline::create(device(), desc);
    if (from_cache) *from_cache = pipeline.from_driver_cache();
    std::vector<float> x(kN);
    for (uint32_t i = 0; i < kN; ++i) x[i] = 0.25f * static_cast<float>(i % 7) - 0.5f;
    vk::Buffer bx = vk::Buffer::create(device(), kN * sizeof(float));
    vk::Buffer by = vk::Buffer::create(device(), kN * sizeof(float));
    bx.upload(std::span<const float>(x));
    const vk::Buffer* buffers[] = {&bx, &by};
    vk::DescriptorSet set = pipeline.bind(buffers);
    device().run([&](vk::CommandBuffer& cb) { cb.dispatch(pipeline, set, {}, {kN / 64, 1, 1}); });
    return by.download<float>(kN);
  }

  ShaderCompiler compiler_;
  testing::TempDir dir_;
};

TEST_F(PipelineCacheFileTest, ASavedCacheSeedsTheNextWithTheSameResults) {
  std::string warning = "unset";
  std::vector<float> cold;
  std::filesystem::path file;
  {
    const vk::PipelineCacheFile cache = vk::PipelineCacheFile::open(device(), dir_.path(), &warning);
    EXPECT_EQ(warning, "");  // no file yet: nothing to warn about
    EXPECT_EQ(cache.loaded_bytes(), 0u);
    file = cache.file();
    EXPECT_EQ(file.filename(), vk::uuid_hex(device().info().pipeline_cache_uuid) + ".vkpc");
    bool from_cache = true;
    cold = run(cache, &from_cache);
    EXPECT_FALSE(from_cache);  // an empty cache holds nothing to find
    EXPECT_EQ(cache.save(), "");
  }
  const std::string saved = read_file(file);
  ASSERT_GE(saved.size(), sizeof(VkPipelineCacheHeaderVersionOne));
  EXPECT_EQ(vk::PipelineCacheFile::header_problem(saved, device().info()), "");
  for (const auto& entry : std::filesystem::directory_iterator(dir_.path())) {
    EXPECT_EQ(entry.path(), file) << "a temporary file was left behind";
  }

  const vk::PipelineCacheFile warm = vk::PipelineCacheFile::open(device(), dir_.path(), &warning);
  EXPECT_EQ(warning, "");
  EXPECT_EQ(warm.loaded_bytes(), saved.size());
  bool from_cache = false;
  const std::vector<float> again = run(warm, &from_cache);
  ASSERT_EQ(std::memcmp(again.data(), cold.data(), kN * sizeof(float)), 0);
  EXPECT_FLOAT_EQ(cold[9], (0.25f * 2 - 0.5f) * 3 + 9);
  // The driver says whether it found the pipeline only on Vulkan 1.3, and may not then; where it
  // says so, the cache it was given is the one that held it.
  if (from_cache) {
    EXPECT_GT(warm.loaded_bytes(), sizeof(VkPipelineCacheHeaderVersionOne));
  }
}

// A file the device did not write starts an empty cache with a warning that names the file.
TEST_F(PipelineCacheFileTest, ForeignOrCorruptFilesAreIgnoredWithAWarning) {
  std::filesystem::path file;
  {
    const vk::PipelineCacheFile cache = vk::PipelineCacheFile::open(device(), dir_.path(), nullptr);
    run(cache);
    ASSERT_EQ(cache.save(), "");
    file = cache.file();
  }
  const std::string good = read_file(file);
  std::string foreign_uuid = good;
  foreign_uuid[16] = static_cast<char>(foreign_uuid[16] ^ 0xff);  // a byte of pipelineCacheUUID
  std::string foreign_vendor = good;
  foreign_vendor[8] = static_cast<char>(foreign_vendor[8] ^ 0xff);
  std::string bad_version = good;
  bad_version[4] = 7;
  std::string too_long_header = good;
  const uint32_t huge = 1u << 30;
  std::memcpy(too_long_header.data(), &huge, sizeof huge);
  for (const auto& [data, why] : std::vector<std::pair<std::string, std::string>>{
           {foreign_uuid, "written by another device or driver"},
           {foreign_vendor, "written by another device or driver"},
           {bad_version, "header version 7 is not 1"},
           {too_long_header, "header size 1073741824 is not between 32"},
           {good.substr(0, 20), "20 bytes, shorter than the 32-byte header"},
           {"", "0 bytes"},
           {std::string(4096, '\x5a'), "header size"}}) {
    std::ofstream(file, std::ios::binary | std::ios::trunc) << data;
    std::string warning;
    const vk::PipelineCacheFile cache = vk::PipelineCacheFile::open(device(), dir_.path(), &warning);
    EXPECT_NE(warning.find(file.string()), std::string::npos) << warning;
    EXPECT_NE(warning.find(why), std::string::npos) << warning;
    EXPECT_EQ(cache.loaded_bytes(), 0u);
    // Still a working cache: it creates pipelines that compute the right values.
    EXPECT_FLOAT_EQ(run(cache)[9], (0.25f * 2 - 0.5f) * 3 + 9);
  }
}

// A folder it cannot write costs the next run its cache, not this one an exception.
TEST_F(PipelineCacheFileTest, AnUnwritableFolderIsReportedNotThrown) {
  const std::filesystem::path blocked = dir_.path() / "blocked";
  std::ofstream(blocked) << "a file where the folder should be";
  const vk::PipelineCacheFile cache = vk::PipelineCacheFile::open(device(), blocked, nullptr);
  run(cache);
  EXPECT_NE(cache.save().find("could not write"), std::string::npos);
}

}  // namespace
}  // namespace vktune::test
