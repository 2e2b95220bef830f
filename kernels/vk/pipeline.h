// A compute pipeline from SPIR-V: N storage-buffer bindings in set 0, push constants and
// uint32 specialisation constants.
#pragma once

#include <vulkan/vulkan.h>

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "kernels/shader_spec.h"
#include "kernels/vk/handle.h"

namespace vktune::vk {

class Buffer;
class Device;

struct PipelineDesc {
  std::string name;  // for error messages
  std::span<const uint32_t> spirv;
  uint32_t buffer_count = 0;         // bindings 0..buffer_count-1 of set 0
  uint32_t push_constant_bytes = 0;  // 0 = none
  // The values of the module's specialisation constants (workgroup size included); a constant
  // not listed keeps the shader's default.
  Specialization specialization;
  // Forces the subgroup size (VK_EXT_subgroup_size_control); 0 leaves it to the driver.
  uint32_t required_subgroup_size = 0;
  // The driver's pipeline cache to create it through (PipelineCacheFile); none by default.
  VkPipelineCache driver_cache = VK_NULL_HANDLE;
};

// The buffers one dispatch reads and writes, bound in order to bindings 0..n-1.
class DescriptorSet {
 public:
  DescriptorSet(DescriptorSet&&) noexcept = default;
  DescriptorSet& operator=(DescriptorSet&&) noexcept = default;
  VkDescriptorSet get() const noexcept { return set_; }

 private:
  friend class ComputePipeline;
  DescriptorSet() = default;
  // Owns the set; shared by the sets ComputePipeline::bind_all() allocates together.
  std::shared_ptr<const Handle<VkDescriptorPool>> pool_;
  VkDescriptorSet set_ = VK_NULL_HANDLE;
};

class ComputePipeline {
 public:
  // Throws Error naming the pipeline when the driver rejects it.
  static ComputePipeline create(const Device& device, const PipelineDesc& desc);

  ComputePipeline(ComputePipeline&&) noexcept = default;
  ComputePipeline& operator=(ComputePipeline&&) noexcept = default;

  VkPipeline get() const noexcept { return pipeline_.get(); }
  VkPipelineLayout layout() const noexcept { return layout_.get(); }
  uint32_t push_constant_bytes() const noexcept { return push_constant_bytes_; }
  const std::string& name() const noexcept { return name_; }
  // The driver said (VK_PIPELINE_CREATION_FEEDBACK_APPLICATION_PIPELINE_CACHE_HIT_BIT, on Vulkan
  // 1.3) that it found the pipeline in desc.driver_cache instead of compiling it. False where the
  // driver does not say.
  bool from_driver_cache() const noexcept { return from_driver_cache_; }

  // A descriptor set binding `buffers` (exactly buffer_count of them, whole ranges).
  DescriptorSet bind(std::span<const Buffer* const> buffers) const;
  // One descriptor set per list of `sets`, from one pool: a cold-cache instance binds up to 32
  // weight copies, and a pool per set made tens of thousands of pools per problem.
  std::vector<DescriptorSet> bind_all(std::span<const std::vector<const Buffer*>> sets) const;

 private:
  ComputePipeline() = default;
  VkDevice device_ = VK_NULL_HANDLE;
  std::string name_;
  uint32_t buffer_count_ = 0;
  uint32_t push_constant_bytes_ = 0;
  bool from_driver_cache_ = false;
  Handle<VkDescriptorSetLayout> set_layout_;
  Handle<VkPipelineLayout> layout_;
  Handle<VkPipeline> pipeline_;
};

}  // namespace vktune::vk
