// Reading the device fingerprint through vkGetPhysicalDeviceProperties2/Features2.
#include "kernels/vk/device_info.h"

#include <cstdio>
#include <cstring>
#include <set>
#include <nlohmann/json.hpp>

#include "kernels/vk/error.h"

namespace vktune::vk {
namespace {

DeviceType to_device_type(VkPhysicalDeviceType type) {
  switch (type) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU:
      return DeviceType::discrete;
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU:
      return DeviceType::integrated;
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU:
      return DeviceType::virtual_gpu;
    case VK_PHYSICAL_DEVICE_TYPE_CPU:
      return DeviceType::cpu;
    default:
      return DeviceType::other;
  }
}

const char* component_type_name(VkComponentTypeNV type) {
  switch (type) {
    case VK_COMPONENT_TYPE_FLOAT16_NV:
      return "f16";
    case VK_COMPONENT_TYPE_FLOAT32_NV:
      return "f32";
    case VK_COMPONENT_TYPE_FLOAT64_NV:
      return "f64";
    case VK_COMPONENT_TYPE_SINT8_NV:
      return "s8";
    case VK_COMPONENT_TYPE_SINT32_NV:
      return "s32";
    case VK_COMPONENT_TYPE_UINT8_NV:
      return "u8";
    case VK_COMPONENT_TYPE_UINT32_NV:
      return "u32";
    default:
      return "other";
  }
}

std::set<std::string> device_extensions(VkPhysicalDevice device) {
  uint32_t count = 0;
  vkEnumerateDeviceExtensionProperties(device, nullptr, &count, nullptr);
  std::vector<VkExtensionProperties> extensions(count);
  vkEnumerateDeviceExtensionProperties(device, nullptr, &count, extensions.data());
  std::set<std::string> names;
  for (const auto& e : extensions) names.insert(e.extensionName);
  return names;
}

std::vector<CoopMatShape> query_coopmat_shapes(VkInstance instance, VkPhysicalDevice device) {
  auto get = reinterpret_cast<PFN_vkGetPhysicalDeviceCooperativeMatrixPropertiesNV>(
      vkGetInstanceProcAddr(instance, "vkGetPhysicalDeviceCooperativeMatrixPropertiesNV"));
  if (get == nullptr) return {};
  uint32_t count = 0;
  get(device, &count, nullptr);
  std::vector<VkCooperativeMatrixPropertiesNV> props(
      count, VkCooperativeMatrixPropertiesNV{VK_STRUCTURE_TYPE_COOPERATIVE_MATRIX_PROPERTIES_NV});
  get(device, &count, props.data());
  std::vector<CoopMatShape> shapes;
  for (const auto& p : props) {
    if (p.scope != VK_SCOPE_SUBGROUP_NV) continue;
    shapes.push_back({p.MSize, p.NSize, p.KSize, component_type_name(p.AType),
                      component_type_name(p.BType), component_type_name(p.CType),
                      component_type_name(p.DType)});
  }
  return shapes;
}

bool has_host_visible_device_memory(VkPhysicalDevice device, DeviceType type) {
  // Mapping device-local memory is only cheap where it is system memory anyway (CPU and
  // integrated devices); a discrete GPU's small BAR window is left alone.
  if (type != DeviceType::cpu && type != DeviceType::integrated) return false;
  VkPhysicalDeviceMemoryProperties mem;
  vkGetPhysicalDeviceMemoryProperties(device, &mem);
  const VkMemoryPropertyFlags want = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT |
                                     VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                                     VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  for (uint32_t i = 0; i < mem.memoryTypeCount; ++i) {
    if ((mem.memoryTypes[i].propertyFlags & want) == want) return true;
  }
  return false;
}

}  // namespace

const char* device_type_name(DeviceType type) noexcept {
  switch (type) {
    case DeviceType::discrete:
      return "discrete";
    case DeviceType::integrated:
      return "integrated";
    case DeviceType::virtual_gpu:
      return "virtual";
    case DeviceType::cpu:
      return "cpu";
    default:
      return "other";
  }
}

std::string driver_version_text(uint32_t vendor_id, uint32_t v) {
  char text[48];
  if (vendor_id == 0x10de) {  // NVIDIA: 10.8.8.6 bits
    std::snprintf(text, sizeof text, "%u.%u.%u.%u", v >> 22, (v >> 14) & 0xff, (v >> 6) & 0xff,
                  v & 0x3f);
  } else {
    std::snprintf(text, sizeof text, "%u.%u.%u", VK_API_VERSION_MAJOR(v), VK_API_VERSION_MINOR(v),
                  VK_API_VERSION_PATCH(v));
  }
  return text;
}

std::string api_version_text(uint32_t v) {
  char text[32];
  std::snprintf(text, sizeof text, "%u.%u.%u", VK_API_VERSION_MAJOR(v), VK_API_VERSION_MINOR(v),
                VK_API_VERSION_PATCH(v));
  return text;
}

std::string uuid_hex(const std::array<uint8_t, VK_UUID_SIZE>& uuid) {
  std::string hex;
  char byte[3];
  for (uint8_t b : uuid) {
    std::snprintf(byte, sizeof byte, "%02x", b);
    hex += byte;
  }
  return hex;
}

uint32_t compute_queue_family(VkPhysicalDevice device) {
  uint32_t count = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(device, &count, nullptr);
  std::vector<VkQueueFamilyProperties> families(count);
  vkGetPhysicalDeviceQueueFamilyProperties(device, &count, families.data());
  for (uint32_t i = 0; i < count; ++i) {
    if (families[i].queueFlags & VK_QUEUE_COMPUTE_BIT) return i;
  }
  throw Error("the device has no compute queue family");
}

DeviceInfo query_device_info(VkInstance instance, VkPhysicalDevice device, uint32_t index) {
  VkPhysicalDeviceMaintenance3Properties maintenance3{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_3_PROPERTIES};
  VkPhysicalDeviceDriverProperties driver{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES,
                                          &maintenance3};
  VkPhysicalDeviceSubgroupProperties subgroup{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES, &driver};
  VkPhysicalDeviceProperties2 props{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, &subgroup};
  vkGetPhysicalDeviceProperties2(device, &props);
  const VkPhysicalDeviceProperties& p = props.properties;

  DeviceInfo info;
  info.index = index;
  info.name = p.deviceName;
  info.vendor_id = p.vendorID;
  info.device_id = p.deviceID;
  info.type = to_device_type(p.deviceType);
  info.api_version = p.apiVersion;
  info.driver_version = p.driverVersion;
  info.driver_id = driver.driverID;
  info.driver_name = driver.driverName;
  info.driver_info = driver.driverInfo;
  std::memcpy(info.pipeline_cache_uuid.data(), p.pipelineCacheUUID, VK_UUID_SIZE);
  info.subgroup_size = subgroup.subgroupSize;

  DeviceLimits& l = info.limits;
  l.max_invocations = p.limits.maxComputeWorkGroupInvocations;
  for (int i = 0; i < 3; ++i) {
    l.max_workgroup_size[i] = p.limits.maxComputeWorkGroupSize[i];
    l.max_workgroup_count[i] = p.limits.maxComputeWorkGroupCount[i];
  }
  l.max_shared_memory_bytes = p.limits.maxComputeSharedMemorySize;
  l.max_storage_buffer_range = p.limits.maxStorageBufferRange;
  l.max_memory_allocation_size = maintenance3.maxMemoryAllocationSize;
  l.max_push_constants_bytes = p.limits.maxPushConstantsSize;
  l.timestamp_period_ns = p.limits.timestampPeriod;
  {
    uint32_t count = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(device, &count, nullptr);
    std::vector<VkQueueFamilyProperties> families(count);
    vkGetPhysicalDeviceQueueFamilyProperties(device, &count, families.data());
    l.timestamp_valid_bits = families.at(compute_queue_family(device)).timestampValidBits;
  }

  VkPhysicalDeviceShaderFloat16Int8Features f16i8{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES};
  VkPhysicalDevice16BitStorageFeatures s16{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES, &f16i8};
  VkPhysicalDevice8BitStorageFeatures s8{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_8BIT_STORAGE_FEATURES,
                                         &s16};
  VkPhysicalDeviceFeatures2 features{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, &s8};
  vkGetPhysicalDeviceFeatures2(device, &features);

  DeviceFeatures& f = info.features;
  f.storage_8bit = s8.storageBuffer8BitAccess;
  f.storage_16bit = s16.storageBuffer16BitAccess;
  f.shader_float16 = f16i8.shaderFloat16;
  f.shader_int8 = f16i8.shaderInt8;
  f.subgroup_arithmetic = (subgroup.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT) &&
                          (subgroup.supportedOperations & VK_SUBGROUP_FEATURE_ARITHMETIC_BIT);
  const std::set<std::string> extensions = device_extensions(device);
  auto has_extension = [&extensions](const char* name) { return extensions.count(name) > 0; };
  f.subgroup_size_control = has_extension(VK_EXT_SUBGROUP_SIZE_CONTROL_EXTENSION_NAME) ||
                            info.api_version >= VK_API_VERSION_1_3;
  f.coopmat_nv = has_extension(VK_NV_COOPERATIVE_MATRIX_EXTENSION_NAME);
  f.coopmat_khr = has_extension("VK_KHR_cooperative_matrix");
  f.pipeline_executable_properties =
      has_extension(VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME);
  f.portability_subset = has_extension("VK_KHR_portability_subset");
  if (f.coopmat_nv) f.coopmat_shapes = query_coopmat_shapes(instance, device);
  info.host_visible_device_memory = has_host_visible_device_memory(device, info.type);
  return info;
}

nlohmann::json to_json(const DeviceInfo& info) {
  nlohmann::json shapes = nlohmann::json::array();
  for (const auto& s : info.features.coopmat_shapes) {
    shapes.push_back({{"m", s.m}, {"n", s.n}, {"k", s.k}, {"a", s.a_type}, {"b", s.b_type},
                      {"c", s.c_type}, {"result", s.result_type}});
  }
  const DeviceLimits& l = info.limits;
  const DeviceFeatures& f = info.features;
  return {
      {"index", info.index},
      {"name", info.name},
      {"vendor_id", info.vendor_id},
      {"device_id", info.device_id},
      {"device_type", device_type_name(info.type)},
      {"api_version", api_version_text(info.api_version)},
      {"driver_id", info.driver_id},
      {"driver_name", info.driver_name},
      {"driver_info", info.driver_info},
      {"driver_version", info.driver_version},
      {"driver_version_text", driver_version_text(info.vendor_id, info.driver_version)},
      {"pipeline_cache_uuid", uuid_hex(info.pipeline_cache_uuid)},
      {"subgroup_size", info.subgroup_size},
      {"limits",
       {{"max_invocations", l.max_invocations},
        {"max_workgroup_size", l.max_workgroup_size},
        {"max_workgroup_count", l.max_workgroup_count},
        {"max_shared_memory_bytes", l.max_shared_memory_bytes},
        {"max_storage_buffer_range", l.max_storage_buffer_range},
        {"max_memory_allocation_size", l.max_memory_allocation_size},
        {"max_push_constants_bytes", l.max_push_constants_bytes},
        {"timestamp_period_ns", l.timestamp_period_ns},
        {"timestamp_valid_bits", l.timestamp_valid_bits}}},
      {"features",
       {{"storage_8bit", f.storage_8bit},
        {"storage_16bit", f.storage_16bit},
        {"shader_float16", f.shader_float16},
        {"shader_int8", f.shader_int8},
        {"subgroup_arithmetic", f.subgroup_arithmetic},
        {"subgroup_size_control", f.subgroup_size_control},
        {"coopmat_nv", f.coopmat_nv},
        {"coopmat_khr", f.coopmat_khr},
        {"pipeline_executable_properties", f.pipeline_executable_properties},
        {"portability_subset", f.portability_subset},
        {"coopmat_shapes", shapes}}},
      {"host_visible_device_memory", info.host_visible_device_memory},
  };
}

}  // namespace vktune::vk
