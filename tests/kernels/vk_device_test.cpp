// The fingerprint of a real device: what the tuner and the database key on; and submissions
// that run past their hang limit, which never leave work running under what the caller frees.
#include <nlohmann/json.hpp>

#include <string>

#include "kernels/vk/buffer.h"
#include "kernels/vk/command_buffer.h"
#include "kernels/device_info.h"
#include "kernels/vk/error.h"
#include "tests/kernels/vulkan_fixture.h"

namespace vktune::test {
namespace {

class DeviceTest : public VulkanFixture {};

TEST_F(DeviceTest, FingerprintHasTheLimitsThatMatter) {
  const vk::DeviceInfo& info = device().info();
  EXPECT_FALSE(info.name.empty());
  EXPECT_NE(info.vendor_id, 0u);
  EXPECT_GE(info.api_version, VK_API_VERSION_1_2);
  EXPECT_GT(info.subgroup_size, 0u);
  EXPECT_GE(info.limits.max_invocations, 128u);
  EXPECT_GE(info.limits.max_shared_memory_bytes, 16384u);
  EXPECT_GT(info.limits.max_storage_buffer_range, 0u);
  EXPECT_GE(info.limits.max_memory_allocation_size, info.limits.max_storage_buffer_range);
  EXPECT_GT(info.limits.timestamp_period_ns, 0.0f);
  EXPECT_GT(info.limits.timestamp_valid_bits, 0u);
  const nlohmann::json json = vk::to_json(info);
  EXPECT_EQ(json.at("name"), info.name);
  EXPECT_EQ(json.at("pipeline_cache_uuid").get<std::string>().size(), 32u);
}

TEST_F(DeviceTest, EveryListedDeviceHasAFingerprint) {
  const auto devices = instance().devices();
  ASSERT_FALSE(devices.empty());
  for (size_t i = 0; i < devices.size(); ++i) EXPECT_EQ(devices[i].index, i);
}

// The limit grows with the workgroups a submission carries, and a CPU device gets kCpuFactor
// times a GPU's.
TEST_F(DeviceTest, HangLimitScalesWithTheWorkAndTheDevice) {
  vk::CommandBuffer commands = vk::CommandBuffer::begin(device());
  commands.end();
  EXPECT_EQ(commands.workgroups(), 0u);
  const std::chrono::nanoseconds limit = device().hang_limit(commands, std::chrono::seconds(10));
  const int factor = device().info().type == vk::DeviceType::cpu ? vk::Device::kCpuFactor : 1;
  EXPECT_EQ(limit, std::chrono::seconds(10) * factor);
}

// A submission past its limit (0 ns here) is waited out before the error, so the buffer it
// writes is freed after the work: the validation layer, which fails the test on any message,
// sees no buffer destroyed in use.
TEST_F(DeviceTest, ATimedOutSubmissionIsDrainedBeforeItsError) {
  {
    const vk::Buffer big = vk::Buffer::create(device(), 256u << 20);
    vk::CommandBuffer commands = vk::CommandBuffer::begin(device());
    for (int i = 0; i < 8; ++i) commands.fill(big, 0x7fc00000u);
    commands.end();
    try {
      device().submit(commands, std::chrono::nanoseconds(0));
    } catch (const vk::Error& e) {
      EXPECT_EQ(e.result(), VK_TIMEOUT);
      EXPECT_NE(std::string(e.what()).find("drained"), std::string::npos) << e.what();
    }
  }
  device().wait_idle();
}

}  // namespace
}  // namespace vktune::test
