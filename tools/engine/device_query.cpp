// vk::DeviceInfo -> the runtime's device fingerprint.
#include "tools/engine/device_query.h"

#include <algorithm>
#include <string>

namespace vktune::engine {

runtime::LookupDevice lookup_device(const vk::DeviceInfo& info) {
  runtime::LookupDevice d;
  d.vendor_id = info.vendor_id;
  d.device_id = info.device_id;
  d.driver_id = info.driver_id;
  d.driver_version = info.driver_version;
  d.type = info.type;
  static_assert(vk::kUuidSize == 16);
  std::copy(info.pipeline_cache_uuid.begin(), info.pipeline_cache_uuid.end(),
            d.pipeline_cache_uuid.begin());
  d.name = info.name;
  d.origin = "Vulkan device " + std::to_string(info.index);
  return d;
}

}  // namespace vktune::engine
