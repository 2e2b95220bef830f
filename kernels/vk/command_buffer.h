// A recorded command buffer: dispatches, barriers, copies and timestamps, submitted with
// Device::submit (any number of times) or recorded and run at once with Device::run.
#pragma once

#include <vulkan/vulkan.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

#include "kernels/vk/handle.h"

namespace vktune::vk {

class Buffer;
class ComputePipeline;
class DescriptorSet;
class Device;
class TimestampPool;

class CommandBuffer {
 public:
  // Allocates a primary command buffer and begins recording.
  static CommandBuffer begin(const Device& device);

  CommandBuffer(CommandBuffer&&) noexcept = default;
  CommandBuffer& operator=(CommandBuffer&&) noexcept = default;

  VkCommandBuffer get() const noexcept { return buffer_.get(); }
  // Ends recording; Device::submit takes only ended command buffers.
  void end();
  bool ended() const noexcept { return ended_; }
  // Hands the command buffer over (for a timed-out submission that must outlive this object).
  VkCommandBuffer release() noexcept;
  // The workgroups recorded so far, over every dispatch: what a submission carries, which
  // Device::hang_limit scales with.
  uint64_t workgroups() const noexcept { return workgroups_; }

  void dispatch(const ComputePipeline& pipeline, const DescriptorSet& set,
                std::span<const std::byte> push_constants, std::array<uint32_t, 3> groups);
  // Makes every earlier shader or transfer write visible to every later shader or transfer.
  void barrier();
  void copy(const Buffer& src, const Buffer& dst, VkDeviceSize bytes, VkDeviceSize src_offset = 0,
            VkDeviceSize dst_offset = 0);
  // Sets the first `bytes` (a multiple of 4; VK_WHOLE_SIZE: all) of `dst` to copies of `word`.
  void fill(const Buffer& dst, uint32_t word, VkDeviceSize bytes = VK_WHOLE_SIZE);
  void reset_timestamps(const TimestampPool& pool);
  // Writes timestamp `index` once all earlier commands have completed.
  void timestamp(const TimestampPool& pool, uint32_t index);

 private:
  CommandBuffer() = default;
  Handle<VkCommandBuffer> buffer_;
  bool ended_ = false;
  uint64_t workgroups_ = 0;
};

// Push-constant bytes of a trivially copyable struct.
template <typename T>
std::span<const std::byte> push_bytes(const T& value) {
  return std::as_bytes(std::span<const T, 1>(&value, 1));
}

}  // namespace vktune::vk
