// vk::DeviceInfo -> the runtime's device fingerprint.
#include "tools/engine/device_query.h"

#include <algorithm>
#include <string>

namespace vktune::engine {

runtime::DeviceType runtime_device_type(vk::DeviceType type) noexcept {
  switch (type) {
    case vk::DeviceType::discrete:
      return runtime::DeviceType::discrete;
    case vk::DeviceType::integrated:
      return runtime::DeviceType::integrated;
    case vk::DeviceType::virtual_gpu:
      return runtime::DeviceType::virtual_gpu;
    case vk::DeviceType::cpu:
      return runtime::DeviceType::cpu;
    case vk::DeviceType::other:
      break;
  }
  return runtime::DeviceType::other;
}

runtime::LookupDevice lookup_device(const vk::DeviceInfo& info) {
  runtime::LookupDevice d;
  d.vendor_id = info.vendor_id;
  d.device_id = info.device_id;
  d.driver_id = info.driver_id;
  d.driver_version = info.driver_version;
  d.type = runtime_device_type(info.type);
  static_assert(vk::kUuidSize == 16);
  std::copy(info.pipeline_cache_uuid.begin(), info.pipeline_cache_uuid.end(),
            d.pipeline_cache_uuid.begin());
  d.name = info.name;
  d.origin = "Vulkan device " + std::to_string(info.index);
  return d;
}

}  // namespace vktune::engine
