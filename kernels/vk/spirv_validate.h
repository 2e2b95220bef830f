// SPIRV-Tools' validator over a stored module: what the tuner-side tools (import, lookup,
// run-layer) check before they store or serve SPIR-V. The runtime library does not link
// SPIRV-Tools and keeps db/spirv_check.h's header checks.
#pragma once

#include <cstdint>
#include <span>
#include <string>

namespace vktune::kernels {

// Why `bytes` is no module a Vulkan device can take, or "" when it is one: first the header
// checks of db::spirv_problem (whole words, the magic number), then spvValidate under the Vulkan
// environment the module's declared SPIR-V version needs (1.0-1.3: vulkan1.1, 1.4:
// vulkan1.1spv1.4, 1.5: vulkan1.2, 1.6: vulkan1.3). With `vulkan_api_version` (a device's
// VkPhysicalDeviceProperties::apiVersion; 0: no device), a module declaring a SPIR-V version
// that Vulkan does not take is refused as well. E.g. "fails SPIR-V validation (vulkan1.2): ID
// '5[%5]' has not been defined". A module whose instructions are well formed (each word count
// within the module) but that the linked SPIRV-Tools cannot parse, because it uses opcodes or
// operands newer than that release (Debian 12's 2023.1 predates the KHR cooperative matrix),
// passes on the header checks alone. Never throws on any bytes; thread-safe.
std::string spirv_validation_error(std::span<const uint8_t> bytes, uint32_t vulkan_api_version = 0);

}  // namespace vktune::kernels
