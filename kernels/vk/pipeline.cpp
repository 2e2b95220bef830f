// Compute pipelines, their layouts and descriptor sets.
#include "kernels/vk/pipeline.h"

#include <string>

#include "kernels/vk/buffer.h"
#include "kernels/vk/device.h"
#include "kernels/vk/error.h"

namespace vktune::vk {

ComputePipeline ComputePipeline::create(const Device& device, const PipelineDesc& desc) {
  VkDevice vk_device = device.get();
  ComputePipeline p;
  p.device_ = vk_device;
  p.name_ = desc.name;
  p.buffer_count_ = desc.buffer_count;
  p.push_constant_bytes_ = desc.push_constant_bytes;
  auto fail = [&](VkResult r, const char* call) {
    if (r != VK_SUCCESS) {
      throw Error(desc.name + ": " + call + " failed: " + result_name(r), r);
    }
  };

  std::vector<VkDescriptorSetLayoutBinding> bindings(desc.buffer_count);
  for (uint32_t i = 0; i < desc.buffer_count; ++i) {
    bindings[i] = {i, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr};
  }
  VkDescriptorSetLayoutCreateInfo set_info{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
  set_info.bindingCount = desc.buffer_count;
  set_info.pBindings = bindings.data();
  VkDescriptorSetLayout set_layout = VK_NULL_HANDLE;
  fail(vkCreateDescriptorSetLayout(vk_device, &set_info, nullptr, &set_layout),
       "vkCreateDescriptorSetLayout");
  p.set_layout_ = Handle<VkDescriptorSetLayout>(set_layout, [vk_device](VkDescriptorSetLayout h) {
    vkDestroyDescriptorSetLayout(vk_device, h, nullptr);
  });

  VkPushConstantRange range{VK_SHADER_STAGE_COMPUTE_BIT, 0, desc.push_constant_bytes};
  VkPipelineLayoutCreateInfo layout_info{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  layout_info.setLayoutCount = 1;
  layout_info.pSetLayouts = &set_layout;
  layout_info.pushConstantRangeCount = desc.push_constant_bytes > 0 ? 1 : 0;
  layout_info.pPushConstantRanges = &range;
  VkPipelineLayout layout = VK_NULL_HANDLE;
  fail(vkCreatePipelineLayout(vk_device, &layout_info, nullptr, &layout),
       "vkCreatePipelineLayout");
  p.layout_ = Handle<VkPipelineLayout>(layout, [vk_device](VkPipelineLayout h) {
    vkDestroyPipelineLayout(vk_device, h, nullptr);
  });

  VkShaderModuleCreateInfo module_info{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
  module_info.codeSize = desc.spirv.size_bytes();
  module_info.pCode = desc.spirv.data();
  VkShaderModule raw_module = VK_NULL_HANDLE;
  fail(vkCreateShaderModule(vk_device, &module_info, nullptr, &raw_module), "vkCreateShaderModule");
  Handle<VkShaderModule> module(raw_module, [vk_device](VkShaderModule h) {
    vkDestroyShaderModule(vk_device, h, nullptr);
  });

  std::vector<VkSpecializationMapEntry> entries(desc.specialization.size());
  std::vector<uint32_t> values(desc.specialization.size());
  for (uint32_t i = 0; i < entries.size(); ++i) {
    entries[i] = {desc.specialization[i].constant_id,
                  static_cast<uint32_t>(i * sizeof(uint32_t)), sizeof(uint32_t)};
    values[i] = desc.specialization[i].value;
  }
  VkSpecializationInfo spec{static_cast<uint32_t>(entries.size()), entries.data(),
                            values.size() * sizeof(uint32_t), values.data()};
  VkPipelineShaderStageRequiredSubgroupSizeCreateInfo subgroup{
      VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_REQUIRED_SUBGROUP_SIZE_CREATE_INFO};
  subgroup.requiredSubgroupSize = desc.required_subgroup_size;

  VkComputePipelineCreateInfo info{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
  info.stage = {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO};
  info.stage.pNext = desc.required_subgroup_size ? &subgroup : nullptr;
  info.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  info.stage.module = raw_module;
  info.stage.pName = "main";
  info.stage.pSpecializationInfo = entries.empty() ? nullptr : &spec;
  info.layout = layout;
  if (device.info().features.pipeline_executable_properties) {
    info.flags |= VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR;
  }
  // Creation feedback (core in Vulkan 1.3) says whether the driver's cache served it.
  VkPipelineCreationFeedback whole{};
  VkPipelineCreationFeedback stage{};  // a compute pipeline's one stage: the spec asks for it
  VkPipelineCreationFeedbackCreateInfo feedback{
      VK_STRUCTURE_TYPE_PIPELINE_CREATION_FEEDBACK_CREATE_INFO};
  feedback.pPipelineCreationFeedback = &whole;
  feedback.pipelineStageCreationFeedbackCount = 1;
  feedback.pPipelineStageCreationFeedbacks = &stage;
  if (desc.driver_cache != VK_NULL_HANDLE && device.info().api_version >= VK_API_VERSION_1_3) {
    info.pNext = &feedback;
  }
  VkPipeline pipeline = VK_NULL_HANDLE;
  fail(vkCreateComputePipelines(vk_device, desc.driver_cache, 1, &info, nullptr, &pipeline),
       "vkCreateComputePipelines");
  p.from_driver_cache_ =
      (whole.flags & VK_PIPELINE_CREATION_FEEDBACK_VALID_BIT) != 0 &&
      (whole.flags & VK_PIPELINE_CREATION_FEEDBACK_APPLICATION_PIPELINE_CACHE_HIT_BIT) != 0;
  p.pipeline_ = Handle<VkPipeline>(pipeline, [vk_device](VkPipeline h) {
    vkDestroyPipeline(vk_device, h, nullptr);
  });
  return p;
}

DescriptorSet ComputePipeline::bind(std::span<const Buffer* const> buffers) const {
  const std::vector<const Buffer*> one(buffers.begin(), buffers.end());
  return std::move(bind_all(std::span(&one, 1)).front());
}

std::vector<DescriptorSet> ComputePipeline::bind_all(
    std::span<const std::vector<const Buffer*>> sets) const {
  for (const auto& buffers : sets) {
    if (buffers.size() != buffer_count_) {
      throw Error(name_ + ": " + std::to_string(buffers.size()) +
                  " buffers bound, the pipeline has " + std::to_string(buffer_count_) +
                  " bindings");
    }
  }
  if (sets.empty()) return {};
  VkDevice vk_device = device_;
  const auto count = static_cast<uint32_t>(sets.size());
  VkDescriptorPoolSize size{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, buffer_count_ * count};
  VkDescriptorPoolCreateInfo pool_info{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
  pool_info.maxSets = count;
  pool_info.poolSizeCount = buffer_count_ > 0 ? 1 : 0;  // a size's count must not be 0
  pool_info.pPoolSizes = &size;
  VkDescriptorPool raw_pool = VK_NULL_HANDLE;
  check(vkCreateDescriptorPool(vk_device, &pool_info, nullptr, &raw_pool),
        "vkCreateDescriptorPool");
  auto pool = std::make_shared<const Handle<VkDescriptorPool>>(
      raw_pool, [vk_device](VkDescriptorPool h) { vkDestroyDescriptorPool(vk_device, h, nullptr); });

  const std::vector<VkDescriptorSetLayout> layouts(count, set_layout_.get());
  std::vector<VkDescriptorSet> raw_sets(count);
  VkDescriptorSetAllocateInfo alloc{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
  alloc.descriptorPool = raw_pool;
  alloc.descriptorSetCount = count;
  alloc.pSetLayouts = layouts.data();
  check(vkAllocateDescriptorSets(vk_device, &alloc, raw_sets.data()), "vkAllocateDescriptorSets");

  std::vector<VkDescriptorBufferInfo> infos(count * buffer_count_);
  std::vector<VkWriteDescriptorSet> writes(count * buffer_count_);
  std::vector<DescriptorSet> result;
  result.reserve(count);
  for (uint32_t s = 0; s < count; ++s) {
    DescriptorSet set;
    set.pool_ = pool;
    set.set_ = raw_sets[s];
    result.push_back(std::move(set));
    for (uint32_t i = 0; i < buffer_count_; ++i) {
      const uint32_t w = s * buffer_count_ + i;
      infos[w] = {sets[s][i]->get(), 0, VK_WHOLE_SIZE};
      writes[w] = {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
      writes[w].dstSet = raw_sets[s];
      writes[w].dstBinding = i;
      writes[w].descriptorCount = 1;
      writes[w].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
      writes[w].pBufferInfo = &infos[w];
    }
  }
  vkUpdateDescriptorSets(vk_device, static_cast<uint32_t>(writes.size()), writes.data(), 0,
                         nullptr);
  return result;
}

}  // namespace vktune::vk
