// The feature and property structs of VK_KHR_cooperative_matrix and VK_NV_cooperative_matrix2,
// which Debian 12's Vulkan headers (1.3.239) predate; with newer headers they are the headers'
// own. Layouts, structure-type and enum values are the registry's.
#pragma once

#include <vulkan/vulkan.h>

namespace vktune::vk {

#ifdef VK_NV_cooperative_matrix2
using CooperativeMatrixFeaturesKhr = VkPhysicalDeviceCooperativeMatrixFeaturesKHR;
using CooperativeMatrix2FeaturesNv = VkPhysicalDeviceCooperativeMatrix2FeaturesNV;
using CooperativeMatrixPropertiesKhr = VkCooperativeMatrixPropertiesKHR;
inline constexpr VkStructureType kCooperativeMatrixPropertiesKhrType =
    VK_STRUCTURE_TYPE_COOPERATIVE_MATRIX_PROPERTIES_KHR;
inline constexpr VkStructureType kCooperativeMatrixFeaturesKhrType =
    VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_KHR;
inline constexpr VkStructureType kCooperativeMatrix2FeaturesNvType =
    VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_2_FEATURES_NV;
#else
struct CooperativeMatrixFeaturesKhr {
  VkStructureType sType;
  void* pNext;
  VkBool32 cooperativeMatrix;
  VkBool32 cooperativeMatrixRobustBufferAccess;
};
struct CooperativeMatrix2FeaturesNv {
  VkStructureType sType;
  void* pNext;
  VkBool32 cooperativeMatrixWorkgroupScope;
  VkBool32 cooperativeMatrixFlexibleDimensions;
  VkBool32 cooperativeMatrixReductions;
  VkBool32 cooperativeMatrixConversions;
  VkBool32 cooperativeMatrixPerElementOperations;
  VkBool32 cooperativeMatrixTensorAddressing;
  VkBool32 cooperativeMatrixBlockLoads;
};
// VkComponentTypeKHR and VkScopeKHR share the NV enums' values.
struct CooperativeMatrixPropertiesKhr {
  VkStructureType sType;
  void* pNext;
  uint32_t MSize, NSize, KSize;
  VkComponentTypeNV AType, BType, CType, ResultType;
  VkBool32 saturatingAccumulation;
  VkScopeNV scope;
};
inline constexpr VkStructureType kCooperativeMatrixPropertiesKhrType =
    static_cast<VkStructureType>(1000506001);
inline constexpr VkStructureType kCooperativeMatrixFeaturesKhrType =
    static_cast<VkStructureType>(1000506000);
inline constexpr VkStructureType kCooperativeMatrix2FeaturesNvType =
    static_cast<VkStructureType>(1000593000);
#endif

inline constexpr const char* kCooperativeMatrixKhrExtension = "VK_KHR_cooperative_matrix";
inline constexpr const char* kCooperativeMatrix2NvExtension = "VK_NV_cooperative_matrix2";

// Whether `f` has everything q4gsw_coopmat2 uses (DeviceFeatures::coopmat2_nv).
inline bool usable(const CooperativeMatrix2FeaturesNv& f) {
  return f.cooperativeMatrixWorkgroupScope && f.cooperativeMatrixFlexibleDimensions &&
         f.cooperativeMatrixPerElementOperations && f.cooperativeMatrixTensorAddressing &&
         f.cooperativeMatrixBlockLoads;
}

}  // namespace vktune::vk
