// Tuning on every GPU of a host: `vktune tune --devices all|0,1,...` runs one worker process per
// device. Devices of one identity (the database's device key: vendor, device, driver, driver
// version, pipelineCacheUUID, name) share one answer set, so the problems are dealt among them
// as the shards of a `--shard` run are (tuner/shard.h); a device of another identity tunes
// every problem. Pure functions over fingerprints, so tests use fake device lists.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "kernels/device_info.h"
#include "tuner/shard.h"

namespace vktune::tuner {

// The device indices `text` names among `device_count` devices: "all" (every one, in order) or
// a comma-separated list of indices. Throws std::invalid_argument naming the value and what it
// needs: an empty list or item, an item that is not an index, an index past the devices, an
// index named twice. `allow_repeat` lets an index be named more than once (each its own worker
// on that device): tests on a host with one device.
std::vector<size_t> parse_device_list(std::string_view text, size_t device_count,
                                      bool allow_repeat = false);

// Whether `a` and `b` are one device as the database keys devices (db/schema.cpp's UNIQUE key
// of `devices`): their results are interchangeable.
bool same_identity(const vk::DeviceInfo& a, const vk::DeviceInfo& b);

// One worker of a multi-device run: the device (an index of the device list) and its share of
// the problems, as `--shard` takes it (1/1: every problem).
struct DeviceWorker {
  size_t device = 0;
  Shard share;
};

// The workers for `chosen` (indices of `devices`, in the order given): the k-th of g chosen
// devices of one identity takes share k/g.
std::vector<DeviceWorker> plan_device_workers(std::span<const vk::DeviceInfo> devices,
                                              std::span<const size_t> chosen);

}  // namespace vktune::tuner
