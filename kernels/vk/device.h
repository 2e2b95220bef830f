// A logical device with one compute queue: the object every buffer, pipeline and submission
// hangs off. Submissions wait on a fence with a timeout, so a hung dispatch is an error.
#pragma once

#include <vulkan/vulkan.h>

#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "kernels/vk/device_info.h"
#include "kernels/vk/handle.h"
#include "kernels/vk/instance.h"

namespace vktune::vk {

class Buffer;
class CommandBuffer;

class Device {
 public:
  static constexpr std::chrono::milliseconds kDefaultTimeout{10'000};

  // Creates the logical device for physical device `index` of `instance`, enabling the
  // optional features the kernels use where present (8/16-bit storage, float16/int8,
  // subgroup size control, NV cooperative matrix, pipeline executable properties).
  // `instance` must outlive the device.
  static Device create(const Instance& instance, size_t index);

  Device(Device&&) noexcept;
  Device& operator=(Device&&) noexcept = delete;
  ~Device();

  VkDevice get() const noexcept { return device_.get(); }
  VkPhysicalDevice physical() const noexcept { return physical_; }
  const DeviceInfo& info() const noexcept { return info_; }
  const Instance& instance() const noexcept { return *instance_; }
  VkCommandPool command_pool() const noexcept { return pool_.get(); }

  // A memory type index with all `required` flags, preferring one that also has `preferred`.
  // Throws Error when no type matches.
  uint32_t memory_type(uint32_t type_bits, VkMemoryPropertyFlags required,
                       VkMemoryPropertyFlags preferred = 0) const;

  // Submits the ended `commands` and waits for them. On timeout throws Error(VK_TIMEOUT): the
  // work may still be running, so the caller keeps `commands` alive until the device is
  // destroyed. A lost device throws Error(VK_ERROR_DEVICE_LOST) and must be re-created.
  void submit(const CommandBuffer& commands, std::chrono::nanoseconds timeout = kDefaultTimeout);

  // Calls `use` with a mapped host-visible buffer of at least `bytes` for a staging copy.
  // Buffers up to 64 MiB are kept and reused (allocations are slow on some drivers); larger
  // ones are made for the call. Serialized by a mutex.
  void with_staging(VkDeviceSize bytes, const std::function<void(const Buffer&)>& use);

  // Waits until the device is idle and frees work abandoned by timed-out submissions. After a
  // timeout, call this (or destroy the device) before destroying what that work used.
  void wait_idle();

  // Records a fresh command buffer with `record`, submits it and waits (see submit).
  void run(const std::function<void(CommandBuffer&)>& record,
           std::chrono::nanoseconds timeout = kDefaultTimeout);

 private:
  Device() = default;

  const Instance* instance_ = nullptr;
  VkPhysicalDevice physical_ = VK_NULL_HANDLE;
  DeviceInfo info_;
  VkPhysicalDeviceMemoryProperties memory_{};
  Handle<VkDevice> device_;
  VkQueue queue_ = VK_NULL_HANDLE;
  Handle<VkCommandPool> pool_;
  // Work abandoned by a timed-out submit, freed once the device is idle.
  std::vector<Handle<VkFence>> abandoned_fences_;
  std::vector<VkCommandBuffer> abandoned_commands_;
  std::unique_ptr<std::mutex> staging_mutex_ = std::make_unique<std::mutex>();
  std::unique_ptr<Buffer> staging_;
};

}  // namespace vktune::vk
