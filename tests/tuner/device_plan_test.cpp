// --devices: what parses (every refusal names the value), which devices count as one identity,
// and the workers: devices of one identity deal the problems among them, others tune them all.
#include "tuner/device_plan.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

namespace vktune::tuner {
namespace {

std::string error_of(std::string_view text, size_t count, bool allow_repeat = false) {
  try {
    parse_device_list(text, count, allow_repeat);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

vk::DeviceInfo device(const std::string& name, uint32_t driver_version = 1) {
  vk::DeviceInfo d;
  d.name = name;
  d.vendor_id = 0x10de;
  d.device_id = 0x2335;
  d.driver_version = driver_version;
  d.pipeline_cache_uuid[0] = 7;
  return d;
}

TEST(DevicePlan, ParsesAllAndIndexLists) {
  EXPECT_EQ(parse_device_list("all", 3), (std::vector<size_t>{0, 1, 2}));
  EXPECT_EQ(parse_device_list("0", 1), (std::vector<size_t>{0}));
  EXPECT_EQ(parse_device_list("2,0", 3), (std::vector<size_t>{2, 0}));
}

TEST(DevicePlan, RefusalsNameTheValueAndTheLimit) {
  EXPECT_NE(error_of("", 2).find("--devices is empty"), std::string::npos);
  EXPECT_NE(error_of("0,0", 2).find("names device 0 twice"), std::string::npos);
  EXPECT_NE(error_of("0,2", 2).find("there is no device 2; this host has 2 (0 to 1;"),
            std::string::npos);
  EXPECT_NE(error_of("0,", 2).find("\"\" is not a device index"), std::string::npos);
  EXPECT_NE(error_of(",1", 2).find("\"\" is not a device index"), std::string::npos);
  EXPECT_NE(error_of("gpu", 2).find("\"gpu\" is not a device index"), std::string::npos);
  EXPECT_NE(error_of("-1", 2).find("\"-1\" is not a device index"), std::string::npos);
  EXPECT_NE(error_of("all", 0).find("no Vulkan device is present"), std::string::npos);
  EXPECT_NE(error_of("99999999999999999999999", 2).find("is not a device index"),
            std::string::npos);
}

TEST(DevicePlan, ARepeatIsAllowedOnlyWhenAsked) {
  EXPECT_EQ(parse_device_list("0,0", 1, true), (std::vector<size_t>{0, 0}));
  EXPECT_NE(error_of("0,1", 1, true).find("there is no device 1"), std::string::npos);
}

TEST(DevicePlan, IdentityIsTheDatabasesDeviceKey) {
  EXPECT_TRUE(same_identity(device("H200"), device("H200")));
  EXPECT_FALSE(same_identity(device("H200"), device("H100")));
  EXPECT_FALSE(same_identity(device("H200", 1), device("H200", 2)));  // another driver
  vk::DeviceInfo other_uuid = device("H200");
  other_uuid.pipeline_cache_uuid[0] = 8;
  EXPECT_FALSE(same_identity(device("H200"), other_uuid));
  vk::DeviceInfo other_index = device("H200");
  other_index.index = 5;  // where it sits in the list is not who it is
  EXPECT_TRUE(same_identity(device("H200"), other_index));
}

TEST(DevicePlan, IdenticalDevicesDealTheProblemsOthersTuneThemAll) {
  const std::vector<vk::DeviceInfo> devices = {device("H200"), device("H100"), device("H200"),
                                               device("H200")};
  const std::vector<size_t> chosen = {0, 1, 2, 3};
  const std::vector<DeviceWorker> workers = plan_device_workers(devices, chosen);
  ASSERT_EQ(workers.size(), 4u);
  EXPECT_EQ(workers[0].device, 0u);
  EXPECT_EQ(workers[0].share, (Shard{1, 3}));
  EXPECT_EQ(workers[1].device, 1u);
  EXPECT_EQ(workers[1].share, (Shard{1, 1}));
  EXPECT_EQ(workers[2].share, (Shard{2, 3}));
  EXPECT_EQ(workers[3].share, (Shard{3, 3}));

  const std::vector<size_t> two = {3, 1};
  const std::vector<DeviceWorker> apart = plan_device_workers(devices, two);
  ASSERT_EQ(apart.size(), 2u);
  EXPECT_EQ(apart[0].device, 3u);
  EXPECT_EQ(apart[0].share, (Shard{1, 1}));
  EXPECT_EQ(apart[1].share, (Shard{1, 1}));
}

TEST(DevicePlan, ADeviceNamedTwiceIsTwoWorkersSharingItsProblems) {
  const std::vector<vk::DeviceInfo> devices = {device("llvmpipe")};
  const std::vector<size_t> chosen = {0, 0};
  const std::vector<DeviceWorker> workers = plan_device_workers(devices, chosen);
  ASSERT_EQ(workers.size(), 2u);
  EXPECT_EQ(workers[0].share, (Shard{1, 2}));
  EXPECT_EQ(workers[1].share, (Shard{2, 2}));
}

}  // namespace
}  // namespace vktune::tuner
