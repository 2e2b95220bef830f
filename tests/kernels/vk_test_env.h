// One Vulkan device for a whole test binary, under the validation layer when the test is
// labelled `vulkan` (VKTUNE_VALIDATION=1); any validation message fails the test.
#pragma once

#include <gtest/gtest.h>

#include <memory>

#include "kernels/vk/device.h"
#include "kernels/vk/device_select.h"
#include "kernels/vk/instance.h"

namespace vktune::test {

class VulkanTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    instance_ = std::make_unique<vk::Instance>(vk::Instance::create());
    const auto devices = instance_->devices();
    device_ = std::make_unique<vk::Device>(
        vk::Device::create(*instance_, vk::select_device(devices, vk::device_request(""))));
  }
  static void TearDownTestSuite() {
    device_.reset();
    ExpectNoValidationMessages();
    instance_.reset();
  }
  void TearDown() override { ExpectNoValidationMessages(); }

  static void ExpectNoValidationMessages() {
    for (const std::string& message : instance_->validation_log().take()) {
      ADD_FAILURE() << message;
    }
  }

  static vk::Instance& instance() { return *instance_; }
  static vk::Device& device() { return *device_; }

 private:
  static inline std::unique_ptr<vk::Instance> instance_;
  static inline std::unique_ptr<vk::Device> device_;
};

}  // namespace vktune::test
