// The Vulkan instance, optionally under the Khronos validation layer with a messenger that
// records every warning and error, so tests can fail on any validation message.
#pragma once

#include <vulkan/vulkan.h>

#include <cstdio>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "kernels/device_info.h"
#include "kernels/vk/handle.h"

namespace vktune::vk {

// Thread-safe list of the validation messages (warnings and errors) seen so far.
class ValidationLog {
 public:
  // Also writes each message, as it is added, on `stream` (not owned; nullptr: nowhere).
  void echo_to(std::FILE* stream) noexcept;
  void add(std::string message);
  std::vector<std::string> take();  // returns and clears
  size_t size() const;
  // The messages past the first `count`: what arrived since size() read `count`.
  std::vector<std::string> since(size_t count) const;

 private:
  mutable std::mutex mutex_;
  std::vector<std::string> messages_;
  std::FILE* echo_ = nullptr;
};

struct InstanceOptions {
  // Enable VK_LAYER_KHRONOS_validation. Throws at creation if the layer is not installed.
  bool validation = false;
  // Also taken as true when the environment has VKTUNE_VALIDATION=1.
  bool validation_from_env = true;
  // Write each validation message on stderr as it arrives, besides recording it (the CLI:
  // someone debugging a driver reads them there).
  bool print_messages = false;
};

class Instance {
 public:
  static Instance create(const InstanceOptions& options = {});

  VkInstance get() const noexcept { return instance_.get(); }
  bool validation() const noexcept { return static_cast<bool>(messenger_); }
  // Messages of the validation layer; empty when validation is off.
  ValidationLog& validation_log() const noexcept { return *log_; }

  std::vector<VkPhysicalDevice> physical_devices() const;
  // Fingerprints of every physical device, in enumeration order.
  std::vector<DeviceInfo> devices() const;

 private:
  // Destroyed in reverse order: the messenger before the instance.
  std::unique_ptr<ValidationLog> log_ = std::make_unique<ValidationLog>();
  Handle<VkInstance> instance_;
  Handle<VkDebugUtilsMessengerEXT> messenger_;
};

}  // namespace vktune::vk
