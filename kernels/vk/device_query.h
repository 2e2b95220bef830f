// Reads a physical device's fingerprint (device_info.h) through Vulkan.
#pragma once

#include <vulkan/vulkan.h>

#include "kernels/device_info.h"

namespace vktune::vk {

// Reads the fingerprint of one physical device. The instance must be Vulkan 1.1 or newer.
DeviceInfo query_device_info(VkInstance instance, VkPhysicalDevice device, uint32_t index);

// Index of the queue family vktune submits to: the first with compute support.
// Throws Error if the device has none.
uint32_t compute_queue_family(VkPhysicalDevice device);

}  // namespace vktune::vk
