// A small compute shader on random data; specialization and push constants reaching it.
#include "kernels/vk/pipeline.h"

#include <cmath>
#include <random>

#include "kernels/vk/shader_compiler.h"
#include "kernels/vk/buffer.h"
#include "kernels/vk/command_buffer.h"
#include "kernels/vk/error.h"
#include "kernels/vk/pipeline_statistics.h"
#include "tests/kernels/vulkan_fixture.h"

namespace vktune::test {
namespace {

// y[i] = a * x[i] + b[i] + OFFSET (a #define), LOCAL the workgroup size (spec constant 0),
// a and n push constants.
constexpr const char* kAxpy = R"(#version 450
layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint SCALE_B = 1;
layout(push_constant) uniform Push { float a; uint n; } p;
layout(std430, binding = 0) readonly buffer X { float x[]; };
layout(std430, binding = 1) readonly buffer B { float b[]; };
layout(std430, binding = 2) writeonly buffer Y { float y[]; };
#ifndef OFFSET
#define OFFSET 0.0
#endif
void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i < p.n) y[i] = p.a * x[i] + float(SCALE_B) * b[i] + OFFSET;
}
)";

struct Push {
  float a;
  uint32_t n;
};

class PipelineTest : public VulkanFixture {
 protected:
  std::vector<float> Run(const Defines& defines, Specialization spec, Push push,
                         const std::vector<float>& x, const std::vector<float>& b) {
    auto spirv = compiler_.compile_text("axpy.comp", kAxpy, defines, "axpy");
    const uint32_t local = spec.at(0).value;
    vk::ComputePipeline pipeline = vk::ComputePipeline::create(
        device(), {"axpy", *spirv, 3, sizeof(Push), std::move(spec)});
    const size_t bytes = x.size() * sizeof(float);
    vk::Buffer bx = vk::Buffer::create(device(), bytes), bb = vk::Buffer::create(device(), bytes),
               by = vk::Buffer::create(device(), bytes);
    bx.upload(std::span<const float>(x));
    bb.upload(std::span<const float>(b));
    const vk::Buffer* buffers[] = {&bx, &bb, &by};
    vk::DescriptorSet set = pipeline.bind(buffers);
    device().run([&](vk::CommandBuffer& cb) {
      cb.dispatch(pipeline, set, vk::push_bytes(push), {(push.n + local - 1) / local, 1, 1});
    });
    return by.download<float>(x.size());
  }

  ShaderCompiler compiler_;
};

TEST_F(PipelineTest, ComputesOnRandomData) {
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> dist(-1, 1);
  std::vector<float> x(1000), b(1000);
  for (size_t i = 0; i < x.size(); ++i) x[i] = dist(rng), b[i] = dist(rng);
  const auto y = Run({}, {{0, 64}, {1, 1}}, {2.5f, 1000}, x, b);
  // The GPU may fuse the multiply-add: allow one rounding of the terms' magnitude.
  for (size_t i = 0; i < x.size(); ++i) {
    ASSERT_NEAR(y[i], 2.5f * x[i] + b[i], 1e-6f * (2.5f * std::abs(x[i]) + std::abs(b[i]))) << i;
  }
}

TEST_F(PipelineTest, SpecializationDefinesAndPushConstantsReachTheShader) {
  std::vector<float> x(300, 1.0f), b(300, 2.0f);
  // 3 * 1 + 5 * 2 + 0.5 from push constant a, spec constant SCALE_B and the OFFSET define.
  const auto y = Run({{"OFFSET", "0.5"}}, {{0, 32}, {1, 5}}, {3.0f, 257}, x, b);
  EXPECT_FLOAT_EQ(y[0], 13.5f);
  EXPECT_FLOAT_EQ(y[256], 13.5f);
}

// Sets allocated together (one pool) each bind their own buffers, and outlive one another.
TEST_F(PipelineTest, SetsBoundTogetherEachReachTheirOwnBuffers) {
  auto spirv = compiler_.compile_text("axpy.comp", kAxpy, {}, "axpy");
  vk::ComputePipeline pipeline =
      vk::ComputePipeline::create(device(), {"axpy", *spirv, 3, sizeof(Push), {{0, 16}, {1, 1}}});
  constexpr uint32_t kN = 16;
  vk::Buffer x = vk::Buffer::create(device(), kN * sizeof(float));
  x.upload(std::span<const float>(std::vector<float>(kN, 1.0f)));
  std::vector<vk::Buffer> b, y;
  std::vector<std::vector<const vk::Buffer*>> lists;
  for (int s = 0; s < 3; ++s) {
    b.push_back(vk::Buffer::create(device(), kN * sizeof(float)));
    y.push_back(vk::Buffer::create(device(), kN * sizeof(float)));
    b.back().upload(std::span<const float>(std::vector<float>(kN, static_cast<float>(s))));
  }
  for (int s = 0; s < 3; ++s) lists.push_back({&x, &b[s], &y[s]});
  std::vector<vk::DescriptorSet> sets = pipeline.bind_all(lists);
  ASSERT_EQ(sets.size(), 3u);
  sets.erase(sets.begin());  // the pool stays while any set of it lives
  device().run([&](vk::CommandBuffer& cb) {
    for (const vk::DescriptorSet& set : sets) {
      cb.dispatch(pipeline, set, vk::push_bytes(Push{2.0f, kN}), {1, 1, 1});
    }
  });
  EXPECT_FLOAT_EQ(y[1].download<float>(kN)[kN - 1], 3.0f);  // 2 * 1 + 1
  EXPECT_FLOAT_EQ(y[2].download<float>(kN)[0], 4.0f);       // 2 * 1 + 2
  const std::vector<std::vector<const vk::Buffer*>> short_list = {{&x}};
  EXPECT_THROW(pipeline.bind_all(short_list), vk::Error);
}

// The driver's statistics come back exactly when the device has the extension (lavapipe has
// not; the H100's driver reports registers, shared memory and spills per pipeline).
TEST_F(PipelineTest, StatisticsExistExactlyWhereTheExtensionDoes) {
  auto spirv = compiler_.compile_text("axpy.comp", kAxpy, {}, "axpy");
  const vk::ComputePipeline pipeline =
      vk::ComputePipeline::create(device(), {"axpy", *spirv, 3, sizeof(Push), {{0, 64}}});
  const auto statistics = vk::pipeline_statistics(device(), pipeline);
  if (!device().info().features.pipeline_executable_properties) {
    EXPECT_TRUE(statistics.empty());
    return;
  }
  ASSERT_FALSE(statistics.empty());
  for (const vk::PipelineStatistic& s : statistics) {
    EXPECT_FALSE(s.name.empty());
    EXPECT_NE(s.value, "?") << s.name;
  }
}

TEST(PipelineStatisticFormat, EveryValueTypeIsWrittenOut) {
  VkPipelineExecutableStatisticKHR s{VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_STATISTIC_KHR};
  s.format = VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_BOOL32_KHR;
  s.value.b32 = VK_TRUE;
  EXPECT_EQ(vk::format_statistic(s), "true");
  s.format = VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_INT64_KHR;
  s.value.i64 = -42;
  EXPECT_EQ(vk::format_statistic(s), "-42");
  s.format = VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_UINT64_KHR;
  s.value.u64 = 18446744073709551615ull;
  EXPECT_EQ(vk::format_statistic(s), "18446744073709551615");
  s.format = VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_FLOAT64_KHR;
  s.value.f64 = 0.1234567;
  EXPECT_EQ(vk::format_statistic(s), "0.123457");
}

}  // namespace
}  // namespace vktune::test
