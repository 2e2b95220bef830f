// What the driver's compiler made of a pipeline, through VK_KHR_pipeline_executable_properties:
// per executable (NVIDIA reports one per compute pipeline) its statistics, such as registers
// per thread, shared memory and spilled bytes. The names and meanings are the driver's own.
#pragma once

#include <vulkan/vulkan.h>

#include <string>
#include <vector>

namespace vktune::vk {

class ComputePipeline;
class Device;

struct PipelineStatistic {
  std::string executable;  // the driver's name for the executable, e.g. "Compute Shader"
  std::string name;
  std::string description;
  std::string value;  // formatted from the statistic's type
};

// The statistics of `pipeline`, created on `device`; empty when the device lacks the
// extension (lavapipe does). Throws vk::Error when the driver fails the queries.
std::vector<PipelineStatistic> pipeline_statistics(const Device& device,
                                                   const ComputePipeline& pipeline);

// One statistic's value as text: booleans as true/false, integers in decimal, floats with
// up to 6 significant digits.
std::string format_statistic(const VkPipelineExecutableStatisticKHR& statistic);

}  // namespace vktune::vk
