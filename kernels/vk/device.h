// A logical device with one compute queue: the object every buffer, pipeline and submission
// hangs off. Submissions wait on a fence with a timeout, so a hung dispatch is an error.
#pragma once

#include <vulkan/vulkan.h>

#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "kernels/device_info.h"
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

  // Submits the ended `commands` and waits for them up to hang_limit(commands, timeout). Past
  // it, waits kDrainLimit more for the work to finish, then throws Error(VK_TIMEOUT): when the
  // work finished (the message says "drained"), nothing it used is in use any more, so the
  // caller may free its buffers and descriptor pools as it unwinds; when it did not, its fence
  // and (through run) command buffer are leaked on purpose until the device is destroyed, and
  // the message says the device must be destroyed before what the work used. A lost device
  // throws Error(VK_ERROR_DEVICE_LOST) and must be re-created.
  void submit(const CommandBuffer& commands, std::chrono::nanoseconds timeout = kDefaultTimeout);

  // How long submit waits before it calls `commands` hung: `timeout` plus kPerKiloWorkgroup
  // for every 1024 workgroups they carry, times kCpuFactor on a CPU device (lavapipe runs the
  // workgroups on a few cores, hundreds of times slower than a GPU: one 10 s limit was a
  // limit it could not meet).
  std::chrono::nanoseconds hang_limit(const CommandBuffer& commands,
                                      std::chrono::nanoseconds timeout) const;
  static constexpr std::chrono::milliseconds kPerKiloWorkgroup{1};
  static constexpr int kCpuFactor = 30;
  static constexpr std::chrono::minutes kDrainLimit{10};

  // The most one staging copy moves: Buffer's transfers go through in pieces of this.
  static constexpr VkDeviceSize kStagingBytes = 64ull << 20;
  // Calls `use` with a mapped host-visible buffer of at least `bytes` (at most kStagingBytes,
  // else std::invalid_argument) for a staging copy. The buffer is kept and reused: allocating
  // and faulting in host-visible memory is slow on some drivers (a fresh 262 MB one, an
  // lm_head's weight, costs more than its copy). Serialized by a mutex.
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
