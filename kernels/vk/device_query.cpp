// Reading the device fingerprint through vkGetPhysicalDeviceProperties2/Features2.
#include "kernels/vk/device_query.h"

#include <cstring>
#include <set>

#include "kernels/vk/cooperative_matrix_structs.h"
#include "kernels/vk/error.h"

namespace vktune::vk {

static_assert(VK_UUID_SIZE == kUuidSize);

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

// The subgroup-scope shapes a cooperative-matrix properties query lists: `Props` is
// VkCooperativeMatrixPropertiesNV or the KHR struct (the same fields, but for the result type,
// which `result` reads), `function` the query's name, `type` the struct's sType.
template <class Props, class Result>
std::vector<CoopMatShape> query_shapes(VkInstance instance, VkPhysicalDevice device,
                                       const char* function, VkStructureType type, Result result) {
  using Get = VkResult(VKAPI_PTR*)(VkPhysicalDevice, uint32_t*, Props*);
  auto get = reinterpret_cast<Get>(vkGetInstanceProcAddr(instance, function));
  if (get == nullptr) return {};
  uint32_t count = 0;
  get(device, &count, nullptr);
  Props blank{};
  blank.sType = type;
  std::vector<Props> props(count, blank);
  get(device, &count, props.data());
  auto name = [](auto component) {
    return component_type_name(static_cast<VkComponentTypeNV>(component));
  };
  std::vector<CoopMatShape> shapes;
  for (const Props& p : props) {
    if (static_cast<VkScopeNV>(p.scope) != VK_SCOPE_SUBGROUP_NV) continue;
    shapes.push_back(
        {p.MSize, p.NSize, p.KSize, name(p.AType), name(p.BType), name(p.CType), name(result(p))});
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

namespace {

// The device's properties and limits, and the subgroup operations it offers compute shaders.
void query_properties(VkPhysicalDevice device, const std::set<std::string>& extensions,
                      DeviceInfo& info) {
  VkPhysicalDeviceMaintenance3Properties maintenance3{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_3_PROPERTIES};
  VkPhysicalDeviceDriverProperties driver{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES,
                                          &maintenance3};
  VkPhysicalDeviceSubgroupProperties subgroup{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES, &driver};
  VkPhysicalDeviceProperties2 props{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, &subgroup};
  // Only a device listing the extension may be asked for its struct.
  VkPhysicalDeviceShaderSMBuiltinsPropertiesNV sm{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_SM_BUILTINS_PROPERTIES_NV};
  const bool sm_builtins = extensions.count(VK_NV_SHADER_SM_BUILTINS_EXTENSION_NAME) > 0;
  if (sm_builtins) maintenance3.pNext = &sm;
  vkGetPhysicalDeviceProperties2(device, &props);
  const VkPhysicalDeviceProperties& p = props.properties;

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
  l.compute_units = sm_builtins ? sm.shaderSMCount : 0;
  {
    uint32_t count = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(device, &count, nullptr);
    std::vector<VkQueueFamilyProperties> families(count);
    vkGetPhysicalDeviceQueueFamilyProperties(device, &count, families.data());
    l.timestamp_valid_bits = families.at(compute_queue_family(device)).timestampValidBits;
  }
  DeviceFeatures& f = info.features;
  f.subgroup_arithmetic = (subgroup.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT) &&
                          (subgroup.supportedOperations & VK_SUBGROUP_FEATURE_ARITHMETIC_BIT);
  f.subgroup_shuffle = (subgroup.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT) &&
                       (subgroup.supportedOperations & VK_SUBGROUP_FEATURE_SHUFFLE_BIT);
}

// The device's features, those of the extensions it lists among them; `info`'s API version
// read first.
void query_features(VkInstance instance, VkPhysicalDevice device,
                    const std::set<std::string>& extensions, DeviceInfo& info) {
  auto has_extension = [&extensions](const char* name) { return extensions.count(name) > 0; };
  VkPhysicalDeviceShaderFloat16Int8Features f16i8{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES};
  VkPhysicalDevice16BitStorageFeatures s16{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES, &f16i8};
  VkPhysicalDevice8BitStorageFeatures s8{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_8BIT_STORAGE_FEATURES,
                                         &s16};
  VkPhysicalDeviceFeatures2 features{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, &s8};
  // Vulkan 1.3's features (shaderIntegerDotProduct): only a 1.3 device knows the struct.
  VkPhysicalDeviceVulkan13Features v13{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES};
  if (info.api_version >= VK_API_VERSION_1_3) f16i8.pNext = &v13;
  // The cooperative-matrix structs only where the device lists their extensions (and, for
  // cooperative matrix 2, Vulkan 1.3: its SPIR-V is 1.6).
  VkPhysicalDeviceBufferDeviceAddressFeatures address{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_BUFFER_DEVICE_ADDRESS_FEATURES};
  CooperativeMatrix2FeaturesNv coopmat2{kCooperativeMatrix2FeaturesNvType, &address};
  CooperativeMatrixFeaturesKhr coopmat_khr{kCooperativeMatrixFeaturesKhrType};
  const bool khr_listed = has_extension(kCooperativeMatrixKhrExtension);
  const bool coopmat2_listed = khr_listed && info.api_version >= VK_API_VERSION_1_3 &&
                               has_extension(kCooperativeMatrix2NvExtension);
  void** next = &f16i8.pNext;  // the end of the chain
  if (info.api_version >= VK_API_VERSION_1_3) next = &v13.pNext;
  if (khr_listed) {
    *next = &coopmat_khr;
    next = &coopmat_khr.pNext;
  }
  if (coopmat2_listed) *next = &coopmat2;
  vkGetPhysicalDeviceFeatures2(device, &features);

  DeviceFeatures& f = info.features;
  f.storage_8bit = s8.storageBuffer8BitAccess;
  f.storage_16bit = s16.storageBuffer16BitAccess;
  f.shader_float16 = f16i8.shaderFloat16;
  f.shader_int8 = f16i8.shaderInt8;
  // Core in 1.3 only: a 1.2 device with just VK_KHR_shader_integer_dot_product is not used.
  f.shader_integer_dot_product =
      info.api_version >= VK_API_VERSION_1_3 && v13.shaderIntegerDotProduct;
  f.subgroup_size_control = has_extension(VK_EXT_SUBGROUP_SIZE_CONTROL_EXTENSION_NAME) ||
                            info.api_version >= VK_API_VERSION_1_3;
  f.coopmat_nv = has_extension(VK_NV_COOPERATIVE_MATRIX_EXTENSION_NAME);
  f.coopmat_khr = khr_listed && coopmat_khr.cooperativeMatrix;
  f.coopmat2_nv = coopmat2_listed && f.coopmat_khr && usable(coopmat2) &&
                  address.bufferDeviceAddress;
  f.pipeline_executable_properties =
      has_extension(VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME);
  f.portability_subset = has_extension("VK_KHR_portability_subset");
  if (f.coopmat_nv) {
    f.coopmat_shapes = query_shapes<VkCooperativeMatrixPropertiesNV>(
        instance, device, "vkGetPhysicalDeviceCooperativeMatrixPropertiesNV",
        VK_STRUCTURE_TYPE_COOPERATIVE_MATRIX_PROPERTIES_NV, [](const auto& q) { return q.DType; });
  }
  if (f.coopmat_khr) {
    f.coopmat_khr_shapes = query_shapes<CooperativeMatrixPropertiesKhr>(
        instance, device, "vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR",
        kCooperativeMatrixPropertiesKhrType, [](const auto& q) { return q.ResultType; });
  }
}

}  // namespace

DeviceInfo query_device_info(VkInstance instance, VkPhysicalDevice device, uint32_t index) {
  const std::set<std::string> extensions = device_extensions(device);
  DeviceInfo info;
  info.index = index;
  query_properties(device, extensions, info);
  query_features(instance, device, extensions, info);
  info.host_visible_device_memory = has_host_visible_device_memory(device, info.type);
  return info;
}

}  // namespace vktune::vk
