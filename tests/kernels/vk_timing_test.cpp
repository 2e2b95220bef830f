// Timestamp queries give increasing nanoseconds; a hung dispatch becomes a timeout error.
#include <chrono>

#include "kernels/vk/shader_compiler.h"
#include "kernels/vk/buffer.h"
#include "kernels/vk/command_buffer.h"
#include "kernels/vk/error.h"
#include "kernels/vk/pipeline.h"
#include "kernels/vk/timestamp_pool.h"
#include "tests/kernels/vulkan_fixture.h"

namespace vktune::test {
namespace {

// Spins `iterations` times per invocation: slow enough to measure and to outlast a timeout.
constexpr const char* kSpin = R"(#version 450
layout(local_size_x = 64) in;
layout(push_constant) uniform Push { uint iterations; } p;
layout(std430, binding = 0) buffer Y { float y[]; };
void main() {
  float v = float(gl_GlobalInvocationID.x);
  for (uint i = 0; i < p.iterations; ++i) v = v * 0.999 + 1.0;
  y[gl_GlobalInvocationID.x] = v;
}
)";

class TimingTest : public VulkanFixture {
 protected:
  void SetUp() override {
    spirv_ = compiler_.compile_text("spin.comp", kSpin, {}, "spin");
    pipeline_.emplace(vk::ComputePipeline::create(device(), {"spin", *spirv_, 1, 4, {}}));
    buffer_.emplace(vk::Buffer::create(device(), 64 * 64 * sizeof(float)));
    const vk::Buffer* buffers[] = {&*buffer_};
    set_.emplace(pipeline_->bind(buffers));
  }
  void Spin(vk::CommandBuffer& cb, uint32_t iterations) {
    cb.dispatch(*pipeline_, *set_, vk::push_bytes(iterations), {64, 1, 1});
  }

  ShaderCompiler compiler_;
  std::shared_ptr<const Spirv> spirv_;
  std::optional<vk::ComputePipeline> pipeline_;
  std::optional<vk::Buffer> buffer_;
  std::optional<vk::DescriptorSet> set_;
};

TEST_F(TimingTest, TimestampsIncreaseAndMeasureWork) {
  vk::TimestampPool pool = vk::TimestampPool::create(device(), 3);
  // llvmpipe compiles a pipeline at its first dispatch, inside whatever timestamps surround it
  // (tens of milliseconds on a cold shader cache): dispatch once untimed first.
  device().run([&](vk::CommandBuffer& cb) { Spin(cb, 1); });
  device().run([&](vk::CommandBuffer& cb) {
    cb.reset_timestamps(pool);
    cb.timestamp(pool, 0);
    Spin(cb, 100);
    cb.barrier();
    cb.timestamp(pool, 1);
    Spin(cb, 20000);
    cb.barrier();
    cb.timestamp(pool, 2);
  });
  const auto ns = pool.read_ns();
  ASSERT_EQ(ns.size(), 3u);
  EXPECT_LT(ns[0], ns[1]);
  EXPECT_LT(ns[1], ns[2]);
  // 200x the work takes longer: the clock measures the GPU, not the submission.
  EXPECT_GT(ns[2] - ns[1], ns[1] - ns[0]);
}

TEST_F(TimingTest, AHungSubmissionTimesOutInsteadOfHanging) {
  const auto start = std::chrono::steady_clock::now();
  try {
    device().run([&](vk::CommandBuffer& cb) { Spin(cb, 2'000'000); },
                 std::chrono::milliseconds(1));
    FAIL() << "expected a timeout";
  } catch (const vk::Error& e) {
    EXPECT_EQ(e.result(), VK_TIMEOUT);
    // The limit asked for, scaled for a CPU device (lavapipe: 30x), and the submission drained
    // before the error, so nothing it uses is destroyed under it.
    const std::string what = e.what();
    EXPECT_NE(what.find("did not finish within its limit of"), std::string::npos) << what;
    EXPECT_NE(what.find("the device is considered hung"), std::string::npos) << what;
  }
  // Draining waits for the spin itself (~0.6 s on lavapipe), never for a hang.
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(20));
}

}  // namespace
}  // namespace vktune::test
