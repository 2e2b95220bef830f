// Copy-bandwidth measurement with vkCmdCopyBuffer and timestamps.
#include "tuner/bandwidth.h"

#include <vector>

#include "kernels/vk/buffer.h"
#include "kernels/vk/command_buffer.h"
#include "kernels/vk/device.h"
#include "kernels/vk/timestamp_pool.h"
#include "tuner/statistics.h"

namespace vktune::tuner {

Bandwidth measure_copy_bandwidth(vk::Device& device, uint64_t bytes) {
  if (bytes == 0) {
    bytes = device.info().type == vk::DeviceType::discrete ? (512ull << 20) : (64ull << 20);
  }
  constexpr int kCopiesPerSample = 4, kSamples = 7;
  vk::Buffer a = vk::Buffer::create(device, bytes), b = vk::Buffer::create(device, bytes);
  vk::TimestampPool pool = vk::TimestampPool::create(device, 2);
  device.run([&](vk::CommandBuffer& cb) { cb.copy(a, b, bytes); });  // warm-up: pages in
  std::vector<double> per_copy;
  for (int s = 0; s < kSamples; ++s) {
    device.run([&](vk::CommandBuffer& cb) {
      cb.reset_timestamps(pool);
      cb.timestamp(pool, 0);
      for (int i = 0; i < kCopiesPerSample; ++i) {
        // Alternate direction so each copy reads what the last one wrote, never a cached copy.
        if (i % 2 == 0) cb.copy(a, b, bytes); else cb.copy(b, a, bytes);
        cb.barrier();
      }
      cb.timestamp(pool, 1);
    });
    const auto ns = pool.read_ns();
    per_copy.push_back(static_cast<double>(ns[1] - ns[0]) / kCopiesPerSample);
  }
  const SampleStats stats = summarize(per_copy);
  return {2.0 * static_cast<double>(bytes) / stats.median, bytes, stats.median};
}

}  // namespace vktune::tuner
