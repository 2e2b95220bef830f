// The fingerprint of a real device: what the tuner and the database key on.
#include <nlohmann/json.hpp>

#include "kernels/vk/device_info.h"
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

}  // namespace
}  // namespace vktune::test
