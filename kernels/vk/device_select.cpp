// Device choice by index, name substring or type preference.
#include "kernels/vk/device_select.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <optional>
#include <string>

#include "kernels/vk/error.h"

namespace vktune::vk {
namespace {

int type_rank(DeviceType type) {
  switch (type) {
    case DeviceType::discrete:
      return 0;
    case DeviceType::integrated:
      return 1;
    case DeviceType::virtual_gpu:
      return 2;
    case DeviceType::cpu:
      return 3;
    default:
      return 4;
  }
}

bool contains_ignoring_case(std::string_view haystack, std::string_view needle) {
  auto it = std::search(haystack.begin(), haystack.end(), needle.begin(), needle.end(),
                        [](char a, char b) {
                          return std::tolower(static_cast<unsigned char>(a)) ==
                                 std::tolower(static_cast<unsigned char>(b));
                        });
  return it != haystack.end();
}

std::string device_list(std::span<const DeviceInfo> devices) {
  if (devices.empty()) return "no Vulkan device is present";
  std::string list = "devices:";
  for (size_t i = 0; i < devices.size(); ++i) {
    list += " [" + std::to_string(i) + "] " + devices[i].name + " (" +
            device_type_name(devices[i].type) + ")";
    if (i + 1 < devices.size()) list += ",";
  }
  return list;
}

}  // namespace

size_t select_device(std::span<const DeviceInfo> devices, std::string_view request) {
  if (devices.empty()) {
    throw Error("no Vulkan device found; install a driver (mesa-vulkan-drivers gives lavapipe)");
  }
  const bool is_index =
      !request.empty() && std::all_of(request.begin(), request.end(),
                                      [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
  if (is_index) {
    const size_t index = std::stoul(std::string(request));
    if (index >= devices.size()) {
      throw Error("device index " + std::string(request) + " is out of range; " +
                  device_list(devices));
    }
    return index;
  }
  std::optional<size_t> best;
  for (size_t i = 0; i < devices.size(); ++i) {
    if (!request.empty() && !contains_ignoring_case(devices[i].name, request)) continue;
    if (!best || type_rank(devices[i].type) < type_rank(devices[*best].type)) best = i;
  }
  if (!best) {
    throw Error("no device name contains \"" + std::string(request) + "\"; " +
                device_list(devices));
  }
  return *best;
}

std::string_view device_request(std::string_view flag) noexcept {
  if (!flag.empty()) return flag;
  const char* env = std::getenv("VKTUNE_DEVICE");
  return env ? std::string_view(env) : std::string_view();
}

}  // namespace vktune::vk
