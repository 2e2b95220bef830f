// LookupDevice's view as the query Snapshot::select takes.
#include "runtime/lookup_device.h"

namespace vktune::runtime {

DeviceQuery LookupDevice::query() const noexcept {
  DeviceQuery q;
  q.vendor_id = vendor_id;
  q.device_id = device_id;
  q.driver_id = driver_id;
  q.driver_version = driver_version;
  q.device_type = type;
  q.pipeline_cache_uuid = pipeline_cache_uuid;
  q.name = name;
  return q;
}

}  // namespace vktune::runtime
