// The validation log: what the layer reports is recorded, and with print_messages also written
// on stderr as it arrives (what `vktune --validate` shows a user).
#include <gtest/gtest.h>

#include <string>

#include "kernels/vk/instance.h"

namespace vktune::vk {
namespace {

// Sends one error through the debug-utils messenger, as the layer would.
void submit_message(const Instance& instance, const char* text) {
  auto submit = reinterpret_cast<PFN_vkSubmitDebugUtilsMessageEXT>(
      vkGetInstanceProcAddr(instance.get(), "vkSubmitDebugUtilsMessageEXT"));
  ASSERT_NE(submit, nullptr);
  VkDebugUtilsMessengerCallbackDataEXT data{VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CALLBACK_DATA_EXT};
  data.pMessage = text;
  submit(instance.get(), VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT,
         VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT, &data);
}

TEST(InstanceTest, PrintedMessagesReachStderrAndTheLog) {
  InstanceOptions options;
  options.validation = true;
  options.print_messages = true;
  const Instance instance = Instance::create(options);
  ::testing::internal::CaptureStderr();
  submit_message(instance, "VUID-test-printed");
  const std::string printed = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(printed.find("vktune: validation error: VUID-test-printed"), std::string::npos)
      << printed;
  const auto log = instance.validation_log().take();
  ASSERT_EQ(log.size(), 1u);
  EXPECT_NE(log[0].find("VUID-test-printed"), std::string::npos);
}

TEST(InstanceTest, UnprintedMessagesOnlyReachTheLog) {
  InstanceOptions options;
  options.validation = true;
  const Instance instance = Instance::create(options);
  ::testing::internal::CaptureStderr();
  submit_message(instance, "VUID-test-quiet");
  EXPECT_EQ(::testing::internal::GetCapturedStderr().find("VUID-test-quiet"), std::string::npos);
  EXPECT_EQ(instance.validation_log().take().size(), 1u);
}

}  // namespace
}  // namespace vktune::vk
