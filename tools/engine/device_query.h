// The fingerprint of a Vulkan device as the runtime's lookup takes it: the one mapping from
// vk::DeviceInfo to runtime::DeviceQuery, shared by `vktune lookup` and the engine.
#pragma once

#include "kernels/device_info.h"
#include "runtime/lookup_device.h"
#include "runtime/selection.h"

namespace vktune::engine {

// `info` as a lookup device (owning its strings; .query() views them), with origin
// "Vulkan device <index>".
runtime::LookupDevice lookup_device(const vk::DeviceInfo& info);

}  // namespace vktune::engine
