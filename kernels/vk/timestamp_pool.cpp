// Timestamp query pools.
#include "kernels/vk/timestamp_pool.h"

#include "kernels/vk/device.h"
#include "kernels/vk/error.h"

namespace vktune::vk {

TimestampPool TimestampPool::create(const Device& device, uint32_t count) {
  const DeviceLimits& limits = device.info().limits;
  if (limits.timestamp_valid_bits == 0) {
    throw Error(device.info().name + " has no timestamps on its compute queue; it cannot be timed");
  }
  VkDevice vk_device = device.get();
  TimestampPool t;
  t.device_ = vk_device;
  t.count_ = count;
  t.mask_ = limits.timestamp_valid_bits >= 64 ? ~uint64_t{0}
                                              : (uint64_t{1} << limits.timestamp_valid_bits) - 1;
  t.period_ns_ = limits.timestamp_period_ns;
  VkQueryPoolCreateInfo info{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
  info.queryType = VK_QUERY_TYPE_TIMESTAMP;
  info.queryCount = count;
  VkQueryPool pool = VK_NULL_HANDLE;
  check(vkCreateQueryPool(vk_device, &info, nullptr, &pool), "vkCreateQueryPool");
  t.pool_ = Handle<VkQueryPool>(pool, [vk_device](VkQueryPool p) {
    vkDestroyQueryPool(vk_device, p, nullptr);
  });
  return t;
}

std::vector<uint64_t> TimestampPool::read_ns() const { return read_ns(count_); }

std::vector<uint64_t> TimestampPool::read_ns(uint32_t count) const {
  if (count > count_) {
    throw Error("reading " + std::to_string(count) + " timestamps of a pool of " +
                std::to_string(count_));
  }
  std::vector<uint64_t> ticks(count);
  check(vkGetQueryPoolResults(device_, pool_.get(), 0, count, ticks.size() * sizeof(uint64_t),
                              ticks.data(), sizeof(uint64_t),
                              VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT),
        "vkGetQueryPoolResults");
  for (uint64_t& t : ticks) {
    t = static_cast<uint64_t>(static_cast<double>(t & mask_) * period_ns_);
  }
  return ticks;
}

}  // namespace vktune::vk
