// Logical device creation with the optional features the kernels use, and fenced submission.
#include "kernels/vk/device_query.h"
#include "kernels/vk/device.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "kernels/vk/buffer.h"
#include "kernels/vk/command_buffer.h"
#include "kernels/vk/cooperative_matrix_structs.h"
#include "kernels/vk/error.h"

namespace vktune::vk {
namespace {

// The feature structs chained into VkDeviceCreateInfo; first filled with what the device
// supports, then trimmed to what vktune uses.
struct FeatureChain {
  VkPhysicalDeviceFeatures2 core{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
  VkPhysicalDeviceVulkan11Features v11{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES};
  VkPhysicalDeviceVulkan12Features v12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
  VkPhysicalDeviceVulkan13Features v13{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES};
  VkPhysicalDeviceCooperativeMatrixFeaturesNV coopmat{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_NV};
  VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR executable{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR};
  CooperativeMatrixFeaturesKhr coopmat_khr{kCooperativeMatrixFeaturesKhrType};
  CooperativeMatrix2FeaturesNv coopmat2{kCooperativeMatrix2FeaturesNvType};

  // Links the structs the device knows; FeatureChain must not move afterwards.
  void link(uint32_t api_version, bool with_coopmat, bool with_coopmat_khr, bool with_coopmat2,
            bool with_executable) {
    void** next = &core.pNext;
    auto append = [&next](auto& s) {
      *next = &s;
      next = &s.pNext;
    };
    append(v11);
    append(v12);
    if (api_version >= VK_API_VERSION_1_3) append(v13);
    if (with_coopmat) append(coopmat);
    if (with_coopmat_khr) append(coopmat_khr);
    if (with_coopmat2) append(coopmat2);
    if (with_executable) append(executable);
  }

  // `with_coopmat2`: whether cooperative matrix 2 is enabled (its structs are linked).
  void keep_only_used(bool with_coopmat2) {
    const VkPhysicalDeviceFeatures supported = core.features;
    core.features = {};
    core.features.shaderInt64 = supported.shaderInt64;
    core.features.shaderInt16 = supported.shaderInt16;
    v11 = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES, v11.pNext,
           v11.storageBuffer16BitAccess};
    VkPhysicalDeviceVulkan12Features used12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES,
                                            v12.pNext};
    used12.storageBuffer8BitAccess = v12.storageBuffer8BitAccess;
    used12.shaderFloat16 = v12.shaderFloat16;
    used12.shaderInt8 = v12.shaderInt8;
    used12.bufferDeviceAddress = with_coopmat2 && v12.bufferDeviceAddress;  // its decode functions
    v12 = used12;
    VkPhysicalDeviceVulkan13Features used13{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES,
                                            v13.pNext};
    used13.subgroupSizeControl = v13.subgroupSizeControl;
    used13.computeFullSubgroups = v13.computeFullSubgroups;
    used13.shaderIntegerDotProduct = v13.shaderIntegerDotProduct;
    v13 = used13;
    coopmat.cooperativeMatrixRobustBufferAccess = VK_FALSE;
    coopmat_khr.cooperativeMatrixRobustBufferAccess = VK_FALSE;
  }
};

}  // namespace

Device Device::create(const Instance& instance, size_t index) {
  const auto physical = instance.physical_devices();
  if (index >= physical.size()) {
    throw Error("device index " + std::to_string(index) + " is out of range (" +
                std::to_string(physical.size()) + " devices)");
  }
  Device d;
  d.instance_ = &instance;
  d.physical_ = physical[index];
  d.info_ = query_device_info(instance.get(), d.physical_, static_cast<uint32_t>(index));
  vkGetPhysicalDeviceMemoryProperties(d.physical_, &d.memory_);
  if (d.info_.api_version < VK_API_VERSION_1_2) {
    throw Error(d.info_.name + " supports Vulkan " + api_version_text(d.info_.api_version) +
                "; vktune needs 1.2 or newer");
  }

  std::vector<const char*> extensions;
  const bool coopmat = d.info_.features.coopmat_nv;
  const bool coopmat_khr = d.info_.features.coopmat_khr;
  const bool coopmat2 = d.info_.features.coopmat2_nv;  // implies coopmat_khr
  const bool executable = d.info_.features.pipeline_executable_properties;
  if (coopmat) extensions.push_back(VK_NV_COOPERATIVE_MATRIX_EXTENSION_NAME);
  if (coopmat_khr) extensions.push_back(kCooperativeMatrixKhrExtension);
  if (coopmat2) extensions.push_back(kCooperativeMatrix2NvExtension);
  if (executable) extensions.push_back(VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME);
  if (d.info_.features.portability_subset) {
    extensions.push_back("VK_KHR_portability_subset");
  }

  FeatureChain features;
  features.link(d.info_.api_version, coopmat, coopmat_khr, coopmat2, executable);
  vkGetPhysicalDeviceFeatures2(d.physical_, &features.core);
  features.keep_only_used(coopmat2);

  const uint32_t family = compute_queue_family(d.physical_);
  const float priority = 1.0f;
  VkDeviceQueueCreateInfo queue_info{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
  queue_info.queueFamilyIndex = family;
  queue_info.queueCount = 1;
  queue_info.pQueuePriorities = &priority;
  VkDeviceCreateInfo info{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, &features.core};
  info.queueCreateInfoCount = 1;
  info.pQueueCreateInfos = &queue_info;
  info.enabledExtensionCount = static_cast<uint32_t>(extensions.size());
  info.ppEnabledExtensionNames = extensions.data();

  VkDevice device = VK_NULL_HANDLE;
  check(vkCreateDevice(d.physical_, &info, nullptr, &device), "vkCreateDevice");
  d.device_ = Handle<VkDevice>(device, [](VkDevice h) { vkDestroyDevice(h, nullptr); });
  vkGetDeviceQueue(device, family, 0, &d.queue_);

  VkCommandPoolCreateInfo pool_info{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  pool_info.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
  pool_info.queueFamilyIndex = family;
  VkCommandPool pool = VK_NULL_HANDLE;
  check(vkCreateCommandPool(device, &pool_info, nullptr, &pool), "vkCreateCommandPool");
  d.pool_ = Handle<VkCommandPool>(pool, [device](VkCommandPool p) {
    vkDestroyCommandPool(device, p, nullptr);
  });
  return d;
}

Device::Device(Device&&) noexcept = default;

Device::~Device() {
  if (!device_) return;
  // Everything created from this device must be idle before its handles go.
  wait_idle();
  staging_.reset();
  pool_.reset();
}

void Device::with_staging(VkDeviceSize bytes, const std::function<void(const Buffer&)>& use) {
  if (bytes > kStagingBytes) {
    throw std::invalid_argument("a staging copy of " + std::to_string(bytes) +
                                " bytes; at most " + std::to_string(kStagingBytes) + " at a time");
  }
  std::lock_guard lock(*staging_mutex_);
  if (!staging_ || staging_->size() < bytes) {
    staging_.reset();
    staging_ = std::make_unique<Buffer>(
        Buffer::create_host(*this, std::max<VkDeviceSize>(bytes, 1ull << 20)));
  }
  use(*staging_);
}

void Device::wait_idle() {
  vkDeviceWaitIdle(device_.get());
  if (!abandoned_commands_.empty()) {
    vkFreeCommandBuffers(device_.get(), pool_.get(),
                         static_cast<uint32_t>(abandoned_commands_.size()),
                         abandoned_commands_.data());
    abandoned_commands_.clear();
  }
  abandoned_fences_.clear();
}

uint32_t Device::memory_type(uint32_t type_bits, VkMemoryPropertyFlags required,
                             VkMemoryPropertyFlags preferred) const {
  int fallback = -1;
  for (uint32_t i = 0; i < memory_.memoryTypeCount; ++i) {
    if (!(type_bits & (1u << i))) continue;
    const VkMemoryPropertyFlags flags = memory_.memoryTypes[i].propertyFlags;
    if ((flags & required) != required) continue;
    if ((flags & preferred) == preferred) return i;
    if (fallback < 0) fallback = static_cast<int>(i);
  }
  if (fallback < 0) throw Error("no memory type has the required properties");
  return static_cast<uint32_t>(fallback);
}

void Device::submit(const CommandBuffer& commands, std::chrono::nanoseconds timeout) {
  VkFenceCreateInfo fence_info{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  VkFence raw_fence = VK_NULL_HANDLE;
  check(vkCreateFence(get(), &fence_info, nullptr, &raw_fence), "vkCreateFence");
  VkDevice device = get();
  Handle<VkFence> fence(raw_fence, [device](VkFence f) { vkDestroyFence(device, f, nullptr); });

  VkCommandBuffer buffer = commands.get();
  VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  submit.commandBufferCount = 1;
  submit.pCommandBuffers = &buffer;
  check(vkQueueSubmit(queue_, 1, &submit, fence.get()), "vkQueueSubmit");

  const std::chrono::nanoseconds limit = hang_limit(commands, timeout);
  const auto wait = [&](std::chrono::nanoseconds how_long) {
    return vkWaitForFences(get(), 1, &raw_fence, VK_TRUE, static_cast<uint64_t>(how_long.count()));
  };
  VkResult waited = wait(limit);
  if (waited == VK_TIMEOUT) {
    const std::string late =
        "the submission (" + std::to_string(commands.workgroups()) +
        " workgroups) did not finish within its limit of " +
        std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(limit).count()) +
        " ms; the device is considered hung";
    // Whatever the caller frees while unwinding must not be in use: wait the work out.
    waited = wait(kDrainLimit);
    if (waited == VK_SUCCESS) throw Error(late + " (drained: it finished later)", VK_TIMEOUT);
    if (waited == VK_TIMEOUT) {
      abandoned_fences_.push_back(std::move(fence));
      throw Error(late + ", and still runs " + std::to_string(kDrainLimit.count()) +
                      " min later: its fence and commands are leaked on purpose; destroy the "
                      "device before what the work uses",
                  VK_TIMEOUT);
    }
  }
  check(waited, "vkWaitForFences");
}

std::chrono::nanoseconds Device::hang_limit(const CommandBuffer& commands,
                                            std::chrono::nanoseconds timeout) const {
  const auto carried = kPerKiloWorkgroup * static_cast<int64_t>(commands.workgroups() / 1024);
  const std::chrono::nanoseconds limit = timeout + carried;
  return info_.type == DeviceType::cpu ? limit * kCpuFactor : limit;
}

void Device::run(const std::function<void(CommandBuffer&)>& record,
                 std::chrono::nanoseconds timeout) {
  CommandBuffer commands = CommandBuffer::begin(*this);
  record(commands);
  commands.end();
  try {
    submit(commands, timeout);
  } catch (const Error& e) {
    // A command buffer still pending must not be freed until the device is idle.
    if (e.result() == VK_TIMEOUT) abandoned_commands_.push_back(commands.release());
    throw;
  }
}

}  // namespace vktune::vk
