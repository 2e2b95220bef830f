// Error type of the Vulkan compute core: exceptions inside kernels/ and tuner/, each message
// naming the call that failed and, where known, what to do about it.
#pragma once

#include <vulkan/vulkan.h>

#include <stdexcept>
#include <string>

namespace vktune::vk {

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& what, VkResult result = VK_ERROR_UNKNOWN)
      : std::runtime_error(what), result_(result) {}
  VkResult result() const noexcept { return result_; }
  // A lost device cannot be used again; the tuner re-creates it and carries on.
  bool device_lost() const noexcept { return result_ == VK_ERROR_DEVICE_LOST; }

 private:
  VkResult result_;
};

// The VkResult's enumerator name, e.g. "VK_ERROR_DEVICE_LOST".
const char* result_name(VkResult result) noexcept;

// Throws Error("<call> failed: <VK_...>") unless result is VK_SUCCESS.
void check(VkResult result, const char* call);

}  // namespace vktune::vk
