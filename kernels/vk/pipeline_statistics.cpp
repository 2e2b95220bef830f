// Pipeline statistics through VK_KHR_pipeline_executable_properties.
#include "kernels/vk/pipeline_statistics.h"

#include <cstdio>

#include "kernels/vk/device.h"
#include "kernels/vk/error.h"
#include "kernels/vk/pipeline.h"

namespace vktune::vk {

std::string format_statistic(const VkPipelineExecutableStatisticKHR& statistic) {
  switch (statistic.format) {
    case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_BOOL32_KHR:
      return statistic.value.b32 ? "true" : "false";
    case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_INT64_KHR:
      return std::to_string(statistic.value.i64);
    case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_UINT64_KHR:
      return std::to_string(statistic.value.u64);
    case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_FLOAT64_KHR: {
      char text[32];
      std::snprintf(text, sizeof text, "%.6g", statistic.value.f64);
      return text;
    }
    default:
      return "?";
  }
}

std::vector<PipelineStatistic> pipeline_statistics(const Device& device,
                                                   const ComputePipeline& pipeline) {
  if (!device.info().features.pipeline_executable_properties) return {};
  // Extension entry points come from the device (the loader exports only core ones).
  const auto properties = reinterpret_cast<PFN_vkGetPipelineExecutablePropertiesKHR>(
      vkGetDeviceProcAddr(device.get(), "vkGetPipelineExecutablePropertiesKHR"));
  const auto statistics = reinterpret_cast<PFN_vkGetPipelineExecutableStatisticsKHR>(
      vkGetDeviceProcAddr(device.get(), "vkGetPipelineExecutableStatisticsKHR"));
  if (properties == nullptr || statistics == nullptr) {
    throw Error("VK_KHR_pipeline_executable_properties is enabled but its functions are missing");
  }

  VkPipelineInfoKHR info{VK_STRUCTURE_TYPE_PIPELINE_INFO_KHR};
  info.pipeline = pipeline.get();
  uint32_t count = 0;
  check(properties(device.get(), &info, &count, nullptr), "vkGetPipelineExecutablePropertiesKHR");
  std::vector<VkPipelineExecutablePropertiesKHR> executables(
      count, {VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_PROPERTIES_KHR});
  check(properties(device.get(), &info, &count, executables.data()),
        "vkGetPipelineExecutablePropertiesKHR");

  std::vector<PipelineStatistic> result;
  for (uint32_t e = 0; e < count; ++e) {
    VkPipelineExecutableInfoKHR executable{VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_INFO_KHR};
    executable.pipeline = pipeline.get();
    executable.executableIndex = e;
    uint32_t stat_count = 0;
    check(statistics(device.get(), &executable, &stat_count, nullptr),
          "vkGetPipelineExecutableStatisticsKHR");
    std::vector<VkPipelineExecutableStatisticKHR> stats(
        stat_count, {VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_STATISTIC_KHR});
    check(statistics(device.get(), &executable, &stat_count, stats.data()),
          "vkGetPipelineExecutableStatisticsKHR");
    for (const VkPipelineExecutableStatisticKHR& s : stats) {
      result.push_back({executables[e].name, s.name, s.description, format_statistic(s)});
    }
  }
  return result;
}

}  // namespace vktune::vk
