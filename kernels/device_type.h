// A device's kind as Vulkan reports it (VkPhysicalDeviceType, same values, so the C API passes
// it through), with the one name every layer writes and reads: the database's device_type
// column, the runtime's stored devices, `vktune devices`, db tools' --device-type.
#pragma once

#include <array>
#include <optional>
#include <string_view>

namespace vktune::vk {

enum class DeviceType : int { other = 0, integrated = 1, discrete = 2, virtual_gpu = 3, cpu = 4 };

// The names, in DeviceType's order.
inline constexpr std::array<std::string_view, 5> kDeviceTypeNames = {"other", "integrated",
                                                                     "discrete", "virtual", "cpu"};

// "discrete", "integrated", "virtual", "cpu" or "other".
constexpr const char* device_type_name(DeviceType type) noexcept {
  const auto i = static_cast<size_t>(type);
  return i < kDeviceTypeNames.size() ? kDeviceTypeNames[i].data() : "other";
}

// The type `name` names; none for any other text.
constexpr std::optional<DeviceType> parse_device_type(std::string_view name) noexcept {
  for (size_t i = 0; i < kDeviceTypeNames.size(); ++i) {
    if (kDeviceTypeNames[i] == name) return static_cast<DeviceType>(i);
  }
  return std::nullopt;
}

}  // namespace vktune::vk
