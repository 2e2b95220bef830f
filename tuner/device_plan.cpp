// parse_device_list and plan_device_workers: which worker tunes what on which device.
#include "tuner/device_plan.h"

#include <algorithm>
#include <charconv>
#include <stdexcept>
#include <tuple>

namespace vktune::tuner {
namespace {

std::string devices_present(size_t count) {
  return count == 0 ? "no Vulkan device is present"
                    : "this host has " + std::to_string(count) + " (0 to " +
                          std::to_string(count - 1) + "; `vktune devices` lists them)";
}

}  // namespace

std::vector<size_t> parse_device_list(std::string_view text, size_t device_count,
                                      bool allow_repeat) {
  const std::string quoted = "--devices \"" + std::string(text) + "\"";
  if (text.empty()) {
    throw std::invalid_argument("--devices is empty; give all or device indices, e.g. 0,1");
  }
  std::vector<size_t> list;
  if (text == "all") {
    if (device_count == 0) throw std::invalid_argument(quoted + ": " + devices_present(0));
    for (size_t i = 0; i < device_count; ++i) list.push_back(i);
    return list;
  }
  for (size_t start = 0;;) {
    const size_t comma = std::min(text.find(',', start), text.size());
    const std::string_view item = text.substr(start, comma - start);
    size_t index = 0;
    const auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), index);
    if (item.empty() || ec != std::errc() || end != item.data() + item.size()) {
      throw std::invalid_argument(quoted + ": \"" + std::string(item) +
                                  "\" is not a device index; give all or indices, e.g. 0,1");
    }
    if (index >= device_count) {
      throw std::invalid_argument(quoted + ": there is no device " + std::string(item) + "; " +
                                  devices_present(device_count));
    }
    if (!allow_repeat && std::find(list.begin(), list.end(), index) != list.end()) {
      throw std::invalid_argument(quoted + " names device " + std::to_string(index) +
                                  " twice; name each device once");
    }
    list.push_back(index);
    if (comma == text.size()) return list;
    start = comma + 1;
  }
}

bool same_identity(const vk::DeviceInfo& a, const vk::DeviceInfo& b) {
  return std::tie(a.vendor_id, a.device_id, a.driver_id, a.driver_version, a.pipeline_cache_uuid,
                  a.name) == std::tie(b.vendor_id, b.device_id, b.driver_id, b.driver_version,
                                      b.pipeline_cache_uuid, b.name);
}

std::vector<DeviceWorker> plan_device_workers(std::span<const vk::DeviceInfo> devices,
                                              std::span<const size_t> chosen) {
  std::vector<DeviceWorker> workers;
  for (size_t i = 0; i < chosen.size(); ++i) {
    const auto same = [&](size_t other) {
      return same_identity(devices[chosen[i]], devices[other]);
    };
    const auto kin = static_cast<uint32_t>(std::count_if(chosen.begin(), chosen.end(), same));
    const auto before =
        static_cast<uint32_t>(std::count_if(chosen.begin(), chosen.begin() + i, same));
    workers.push_back({chosen[i], Shard{before + 1, kin}});
  }
  return workers;
}

}  // namespace vktune::tuner
