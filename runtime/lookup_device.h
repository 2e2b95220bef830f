// A device fingerprint that owns its strings, for a caller that keeps one beside the snapshot it
// asks (an engine's router, `vktune lookup`): DeviceQuery only views them.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "runtime/selection.h"

namespace vktune::runtime {

struct LookupDevice {
  uint32_t vendor_id = 0;
  uint32_t device_id = 0;
  uint32_t driver_id = 0;
  uint32_t driver_version = 0;
  DeviceType type = DeviceType::other;
  std::array<uint8_t, 16> pipeline_cache_uuid{};
  std::string name;
  std::string origin;  // how it was obtained, for the output ("Vulkan device 0", "flags", ...)

  // Valid while *this lives and is not modified.
  DeviceQuery query() const noexcept;
};

}  // namespace vktune::runtime
