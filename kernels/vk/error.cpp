// VkResult names for error messages.
#include "kernels/vk/error.h"

namespace vktune::vk {

const char* result_name(VkResult result) noexcept {
  switch (result) {
#define VKTUNE_RESULT(name) \
  case name:                \
    return #name;
    VKTUNE_RESULT(VK_SUCCESS)
    VKTUNE_RESULT(VK_NOT_READY)
    VKTUNE_RESULT(VK_TIMEOUT)
    VKTUNE_RESULT(VK_INCOMPLETE)
    VKTUNE_RESULT(VK_ERROR_OUT_OF_HOST_MEMORY)
    VKTUNE_RESULT(VK_ERROR_OUT_OF_DEVICE_MEMORY)
    VKTUNE_RESULT(VK_ERROR_INITIALIZATION_FAILED)
    VKTUNE_RESULT(VK_ERROR_DEVICE_LOST)
    VKTUNE_RESULT(VK_ERROR_MEMORY_MAP_FAILED)
    VKTUNE_RESULT(VK_ERROR_LAYER_NOT_PRESENT)
    VKTUNE_RESULT(VK_ERROR_EXTENSION_NOT_PRESENT)
    VKTUNE_RESULT(VK_ERROR_FEATURE_NOT_PRESENT)
    VKTUNE_RESULT(VK_ERROR_INCOMPATIBLE_DRIVER)
    VKTUNE_RESULT(VK_ERROR_TOO_MANY_OBJECTS)
    VKTUNE_RESULT(VK_ERROR_FORMAT_NOT_SUPPORTED)
    VKTUNE_RESULT(VK_ERROR_FRAGMENTED_POOL)
    VKTUNE_RESULT(VK_ERROR_OUT_OF_POOL_MEMORY)
    VKTUNE_RESULT(VK_ERROR_INVALID_SHADER_NV)
#undef VKTUNE_RESULT
    default:
      return "VK_ERROR_UNKNOWN";
  }
}

void check(VkResult result, const char* call) {
  if (result != VK_SUCCESS) {
    throw Error(std::string(call) + " failed: " + result_name(result), result);
  }
}

}  // namespace vktune::vk
