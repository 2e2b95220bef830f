// GPU timestamps: a query pool whose results come back in nanoseconds.
#pragma once

#include <vulkan/vulkan.h>

#include <cstdint>
#include <vector>

#include "kernels/vk/handle.h"

namespace vktune::vk {

class Device;

class TimestampPool {
 public:
  // Throws Error if the device's compute queue has no timestamps (timestampValidBits == 0).
  static TimestampPool create(const Device& device, uint32_t count);

  TimestampPool(TimestampPool&&) noexcept = default;
  TimestampPool& operator=(TimestampPool&&) noexcept = default;

  VkQueryPool get() const noexcept { return pool_.get(); }
  uint32_t count() const noexcept { return count_; }

  // Every timestamp, in nanoseconds on the device's clock (valid bits masked, scaled by
  // timestampPeriod). Call after the submission that wrote them has finished.
  std::vector<uint64_t> read_ns() const;
  // The first `count` (<= count()) of them: a submission that wrote only those.
  std::vector<uint64_t> read_ns(uint32_t count) const;

 private:
  TimestampPool() = default;
  VkDevice device_ = VK_NULL_HANDLE;
  uint32_t count_ = 0;
  uint64_t mask_ = 0;
  double period_ns_ = 1.0;
  Handle<VkQueryPool> pool_;
};

}  // namespace vktune::vk
