// Recording dispatches, barriers, copies and timestamps.
#include "kernels/vk/command_buffer.h"

#include "kernels/vk/buffer.h"
#include "kernels/vk/device.h"
#include "kernels/vk/error.h"
#include "kernels/vk/pipeline.h"
#include "kernels/vk/timestamp_pool.h"

namespace vktune::vk {

CommandBuffer CommandBuffer::begin(const Device& device) {
  VkDevice vk_device = device.get();
  VkCommandPool pool = device.command_pool();
  VkCommandBufferAllocateInfo alloc{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  alloc.commandPool = pool;
  alloc.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  alloc.commandBufferCount = 1;
  VkCommandBuffer raw = VK_NULL_HANDLE;
  check(vkAllocateCommandBuffers(vk_device, &alloc, &raw), "vkAllocateCommandBuffers");
  CommandBuffer cb;
  cb.buffer_ = Handle<VkCommandBuffer>(raw, [vk_device, pool](VkCommandBuffer b) {
    vkFreeCommandBuffers(vk_device, pool, 1, &b);
  });
  VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  check(vkBeginCommandBuffer(raw, &begin), "vkBeginCommandBuffer");
  return cb;
}

void CommandBuffer::end() {
  if (ended_) return;
  check(vkEndCommandBuffer(get()), "vkEndCommandBuffer");
  ended_ = true;
}

VkCommandBuffer CommandBuffer::release() noexcept {
  return buffer_.release();  // the device frees it once idle
}

void CommandBuffer::dispatch(const ComputePipeline& pipeline, const DescriptorSet& set,
                             std::span<const std::byte> push_constants,
                             std::array<uint32_t, 3> groups) {
  if (push_constants.size() != pipeline.push_constant_bytes()) {
    throw Error(pipeline.name() + ": " + std::to_string(push_constants.size()) +
                " push-constant bytes given, the pipeline takes " +
                std::to_string(pipeline.push_constant_bytes()));
  }
  vkCmdBindPipeline(get(), VK_PIPELINE_BIND_POINT_COMPUTE, pipeline.get());
  VkDescriptorSet raw_set = set.get();
  vkCmdBindDescriptorSets(get(), VK_PIPELINE_BIND_POINT_COMPUTE, pipeline.layout(), 0, 1,
                          &raw_set, 0, nullptr);
  if (!push_constants.empty()) {
    vkCmdPushConstants(get(), pipeline.layout(), VK_SHADER_STAGE_COMPUTE_BIT, 0,
                       static_cast<uint32_t>(push_constants.size()), push_constants.data());
  }
  vkCmdDispatch(get(), groups[0], groups[1], groups[2]);
  workgroups_ += uint64_t{groups[0]} * groups[1] * groups[2];
}

void CommandBuffer::barrier() {
  VkMemoryBarrier barrier{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  barrier.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
  barrier.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT |
                          VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT |
                          VK_ACCESS_HOST_READ_BIT;
  const VkPipelineStageFlags stages =
      VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT;
  vkCmdPipelineBarrier(get(), stages, stages | VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &barrier, 0,
                       nullptr, 0, nullptr);
}

void CommandBuffer::copy(const Buffer& src, const Buffer& dst, VkDeviceSize bytes,
                         VkDeviceSize src_offset, VkDeviceSize dst_offset) {
  VkBufferCopy region{src_offset, dst_offset, bytes};
  vkCmdCopyBuffer(get(), src.get(), dst.get(), 1, &region);
}

void CommandBuffer::fill(const Buffer& dst, uint32_t word, VkDeviceSize bytes) {
  vkCmdFillBuffer(get(), dst.get(), 0, bytes, word);
}

void CommandBuffer::reset_timestamps(const TimestampPool& pool) {
  vkCmdResetQueryPool(get(), pool.get(), 0, pool.count());
}

void CommandBuffer::timestamp(const TimestampPool& pool, uint32_t index) {
  vkCmdWriteTimestamp(get(), VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, pool.get(), index);
}

}  // namespace vktune::vk
