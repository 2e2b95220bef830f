// Shared GoogleTest fixture for `vulkan`-labelled tests: one Instance + Device per test binary
// (the device VKTUNE_DEVICE names, else the best present), created on first use and destroyed
// at exit, device first. Under VKTUNE_VALIDATION=1 every test fails on any validation message
// recorded while it ran (checked in TearDown).
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "kernels/vk/device.h"
#include "kernels/vk/device_select.h"
#include "kernels/vk/instance.h"

namespace vktune::test {

class VulkanFixture : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { shared(); }

  void TearDown() override {
    for (const std::string& message : instance().validation_log().take()) {
      ADD_FAILURE() << "validation: " << message;
    }
  }

  static vk::Instance& instance() { return shared().instance; }
  static vk::Device& device() { return shared().device; }

 private:
  struct Shared {
    // Declared in creation order; destroyed in reverse (device before instance).
    vk::Instance instance = vk::Instance::create();
    vk::Device device = vk::Device::create(
        instance, vk::select_device(instance.devices(), vk::device_request("")));
  };
  static Shared& shared() {
    static Shared s;
    return s;
  }
};

}  // namespace vktune::test
