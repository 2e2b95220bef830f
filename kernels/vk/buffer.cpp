// Storage buffers and their host transfers.
#include "kernels/vk/buffer.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "kernels/vk/command_buffer.h"
#include "kernels/vk/device.h"
#include "kernels/vk/error.h"

namespace vktune::vk {
namespace {
constexpr VkBufferUsageFlags kStorageUsage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
                                             VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                                             VK_BUFFER_USAGE_TRANSFER_DST_BIT;
constexpr VkMemoryPropertyFlags kHostMemory =
    VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;

// Calls `move(done, bytes)` for each piece of a `total`-byte transfer that one staging copy
// holds (Device::kStagingBytes), in order.
template <typename Move>
void in_pieces(size_t total, const Move& move) {
  for (size_t done = 0; done < total; done += Device::kStagingBytes) {
    move(done, std::min<size_t>(Device::kStagingBytes, total - done));
  }
}
}  // namespace

Buffer Buffer::allocate(Device& device, VkDeviceSize bytes, VkBufferUsageFlags usage,
                        VkMemoryPropertyFlags required, VkMemoryPropertyFlags preferred) {
  if (bytes == 0) throw Error("a buffer of 0 bytes was requested");
  VkDevice vk_device = device.get();
  Buffer b;
  b.device_ = &device;
  b.size_ = bytes;

  VkBufferCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  info.size = bytes;
  info.usage = usage;
  info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  VkBuffer buffer = VK_NULL_HANDLE;
  check(vkCreateBuffer(vk_device, &info, nullptr, &buffer), "vkCreateBuffer");
  b.buffer_ = Handle<VkBuffer>(buffer, [vk_device](VkBuffer h) { vkDestroyBuffer(vk_device, h, nullptr); });

  VkMemoryRequirements needs;
  vkGetBufferMemoryRequirements(vk_device, buffer, &needs);
  VkMemoryAllocateInfo alloc{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  alloc.allocationSize = needs.size;
  alloc.memoryTypeIndex = device.memory_type(needs.memoryTypeBits, required, preferred);
  VkDeviceMemory memory = VK_NULL_HANDLE;
  const VkResult allocated = vkAllocateMemory(vk_device, &alloc, nullptr, &memory);
  if (allocated != VK_SUCCESS) {
    throw Error("allocating " + std::to_string(bytes) + " bytes of device memory failed: " +
                    result_name(allocated),
                allocated);
  }
  b.memory_ = Handle<VkDeviceMemory>(memory, [vk_device](VkDeviceMemory m) {
    vkFreeMemory(vk_device, m, nullptr);  // also unmaps
  });
  check(vkBindBufferMemory(vk_device, buffer, memory, 0), "vkBindBufferMemory");
  if ((required & kHostMemory) == kHostMemory) {
    check(vkMapMemory(vk_device, memory, 0, VK_WHOLE_SIZE, 0, &b.mapped_), "vkMapMemory");
  }
  return b;
}

Buffer Buffer::create(Device& device, VkDeviceSize bytes) {
  if (device.info().host_visible_device_memory) {
    return allocate(device, bytes, kStorageUsage,
                    VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT | kHostMemory, 0);
  }
  return allocate(device, bytes, kStorageUsage, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0);
}

Buffer Buffer::create_host(Device& device, VkDeviceSize bytes) {
  return allocate(device, bytes, VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                  kHostMemory, VK_MEMORY_PROPERTY_HOST_CACHED_BIT);
}

void Buffer::check_range(VkDeviceSize offset, size_t bytes) const {
  if (offset > size_ || bytes > size_ - offset) {
    throw Error("transfer of " + std::to_string(bytes) + " bytes at offset " +
                std::to_string(offset) + " overruns a buffer of " + std::to_string(size_) +
                " bytes");
  }
}

void Buffer::upload(std::span<const std::byte> data, VkDeviceSize offset) {
  check_range(offset, data.size());
  if (data.empty()) return;
  if (mapped_ != nullptr) {
    std::memcpy(static_cast<std::byte*>(mapped_) + offset, data.data(), data.size());
    return;
  }
  in_pieces(data.size(), [&](size_t done, size_t bytes) {
    device_->with_staging(bytes, [&](const Buffer& staging) {
      std::memcpy(staging.mapped_, data.data() + done, bytes);
      device_->run([&](CommandBuffer& cb) { cb.copy(staging, *this, bytes, 0, offset + done); });
    });
  });
}

void Buffer::download(std::span<std::byte> data, VkDeviceSize offset) const {
  check_range(offset, data.size());
  if (data.empty()) return;
  if (mapped_ != nullptr) {
    std::memcpy(data.data(), static_cast<const std::byte*>(mapped_) + offset, data.size());
    return;
  }
  in_pieces(data.size(), [&](size_t done, size_t bytes) {
    device_->with_staging(bytes, [&](const Buffer& staging) {
      device_->run([&](CommandBuffer& cb) { cb.copy(*this, staging, bytes, offset + done, 0); });
      std::memcpy(data.data() + done, staging.mapped_, bytes);
    });
  });
}

}  // namespace vktune::vk
