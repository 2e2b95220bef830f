// Device choice over fake device lists: type preference, index, name substring, errors.
#include "kernels/vk/device_select.h"

#include <gtest/gtest.h>

#include "kernels/vk/error.h"

namespace vktune::vk {
namespace {

DeviceInfo fake(const char* name, DeviceType type) {
  DeviceInfo d;
  d.name = name;
  d.type = type;
  return d;
}

const std::vector<DeviceInfo> kDevices = {
    fake("llvmpipe (LLVM 15.0.6, 256 bits)", DeviceType::cpu),
    fake("Intel(R) UHD Graphics 770", DeviceType::integrated),
    fake("NVIDIA H100 80GB HBM3", DeviceType::discrete),
    fake("NVIDIA GeForce RTX 4090", DeviceType::discrete),
};

TEST(DeviceSelectTest, DefaultPrefersDiscreteThenIntegratedThenCpu) {
  EXPECT_EQ(select_device(kDevices, ""), 2u);
  const std::vector<DeviceInfo> no_discrete(kDevices.begin(), kDevices.begin() + 2);
  EXPECT_EQ(select_device(no_discrete, ""), 1u);
  const std::vector<DeviceInfo> cpu_only(kDevices.begin(), kDevices.begin() + 1);
  EXPECT_EQ(select_device(cpu_only, ""), 0u);
}

TEST(DeviceSelectTest, IndexAndCaseInsensitiveNameSubstring) {
  EXPECT_EQ(select_device(kDevices, "0"), 0u);
  EXPECT_EQ(select_device(kDevices, "3"), 3u);
  EXPECT_EQ(select_device(kDevices, "rtx"), 3u);
  EXPECT_EQ(select_device(kDevices, "LLVMPIPE"), 0u);
  EXPECT_EQ(select_device(kDevices, "nvidia"), 2u);  // several match: first of the best type
}

TEST(DeviceSelectTest, ErrorsListTheDevices) {
  try {
    select_device(kDevices, "radeon");
    FAIL();
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("radeon"), std::string::npos) << what;
    EXPECT_NE(what.find("[2] NVIDIA H100 80GB HBM3"), std::string::npos) << what;
  }
  EXPECT_THROW(select_device(kDevices, "4"), Error);
  EXPECT_THROW(select_device({}, ""), Error);
}

TEST(DeviceSelectTest, DriverVersionsDecodePerVendor) {
  // NVIDIA packs 10.8.8.6 bits: 580.159.4 as in DEVICES.md.
  const uint32_t nvidia = (580u << 22) | (159u << 14) | (4u << 6);
  EXPECT_EQ(driver_version_text(0x10de, nvidia), "580.159.4.0");
  EXPECT_EQ(driver_version_text(0x10005, VK_MAKE_API_VERSION(0, 22, 3, 6)), "22.3.6");
}

}  // namespace
}  // namespace vktune::vk
