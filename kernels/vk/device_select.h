// Choosing a physical device: a pure function over fingerprints, so tests can use fake lists.
#pragma once

#include <span>
#include <string_view>

#include "kernels/device_info.h"

namespace vktune::vk {

// Picks a device for `request`:
//  - empty: the best type present, discrete > integrated > virtual > cpu > other, first wins;
//  - all digits: that index in the list;
//  - otherwise: a case-insensitive substring of the name, best type among the matches.
// Returns the position in `devices`. Throws Error listing the devices when nothing matches.
size_t select_device(std::span<const DeviceInfo> devices, std::string_view request);

// The request from the environment (VKTUNE_DEVICE) unless `flag` is non-empty.
std::string_view device_request(std::string_view flag) noexcept;

}  // namespace vktune::vk
