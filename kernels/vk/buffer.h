// A storage buffer in device memory with upload/download: mapped directly where device memory
// is host memory anyway (CPU and integrated devices), through a staging copy elsewhere.
#pragma once

#include <vulkan/vulkan.h>

#include <cstddef>
#include <span>
#include <vector>

#include "kernels/vk/handle.h"

namespace vktune::vk {

class Device;

class Buffer {
 public:
  // A buffer of `bytes` (> 0) usable as storage buffer and copy source/destination.
  // `device` must outlive the buffer.
  static Buffer create(Device& device, VkDeviceSize bytes);
  // A host-visible, coherent, persistently mapped transfer buffer (staging).
  static Buffer create_host(Device& device, VkDeviceSize bytes);

  Buffer(Buffer&&) noexcept = default;
  Buffer& operator=(Buffer&&) noexcept = default;

  VkBuffer get() const noexcept { return buffer_.get(); }
  VkDeviceSize size() const noexcept { return size_; }
  // The host address of a mapped buffer, else nullptr.
  void* mapped() const noexcept { return mapped_; }

  // Copies host bytes into the buffer at `offset`; blocks until done.
  void upload(std::span<const std::byte> data, VkDeviceSize offset = 0);
  // Copies buffer bytes at `offset` to the host; blocks until done.
  void download(std::span<std::byte> data, VkDeviceSize offset = 0) const;

  template <typename T>
  void upload(std::span<const T> values) {
    upload(std::as_bytes(values));
  }
  template <typename T>
  std::vector<T> download(size_t count) const {
    std::vector<T> values(count);
    download(std::as_writable_bytes(std::span<T>(values)));
    return values;
  }

 private:
  Buffer() = default;
  static Buffer allocate(Device& device, VkDeviceSize bytes, VkBufferUsageFlags usage,
                         VkMemoryPropertyFlags required, VkMemoryPropertyFlags preferred);
  void check_range(VkDeviceSize offset, size_t bytes) const;

  Device* device_ = nullptr;
  VkDeviceSize size_ = 0;
  Handle<VkDeviceMemory> memory_;
  Handle<VkBuffer> buffer_;  // destroyed before its memory
  void* mapped_ = nullptr;   // non-null when the host reads and writes the memory directly
};

}  // namespace vktune::vk
