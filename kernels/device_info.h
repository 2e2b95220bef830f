// The device fingerprint: everything that changes a kernel's binary or its speed, read from a
// VkPhysicalDevice (device_query.h) into plain data so that selection, the kernel catalogue and
// the database need no Vulkan headers.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "kernels/device_type.h"

namespace vktune::vk {

inline constexpr size_t kUuidSize = 16;  // VK_UUID_SIZE

// One shape the device's cooperative-matrix unit supports (VK_NV_ or VK_KHR_cooperative_matrix).
struct CoopMatShape {
  uint32_t m = 0, n = 0, k = 0;
  std::string a_type, b_type, c_type, result_type;  // "f16", "f32", "s8", "s32", ...
};

// Whether `shapes` holds the 16x16x16 tile with f16 operands and f32 accumulators, the one the
// cooperative-matrix families use.
bool has_f16_tile(const std::vector<CoopMatShape>& shapes);

struct DeviceLimits {
  uint32_t max_invocations = 0;          // maxComputeWorkGroupInvocations
  std::array<uint32_t, 3> max_workgroup_size{};
  std::array<uint32_t, 3> max_workgroup_count{};
  uint32_t max_shared_memory_bytes = 0;  // maxComputeSharedMemorySize
  uint64_t max_storage_buffer_range = 0;  // bytes one storage-buffer binding may address
  uint64_t max_memory_allocation_size = 0;  // bytes of one allocation (Vulkan 1.1 maintenance3)
  uint32_t max_push_constants_bytes = 0;
  float timestamp_period_ns = 0;         // nanoseconds per timestamp tick
  uint32_t timestamp_valid_bits = 0;     // of the compute queue family; 0 = no timestamps
  // Streaming multiprocessors (VK_NV_shader_sm_builtins' shaderSMCount); 0 where the device
  // does not say. The runtime's ranking reads it to count how evenly a grid fills the GPU.
  uint32_t compute_units = 0;
};

struct DeviceFeatures {
  bool storage_8bit = false;
  bool storage_16bit = false;
  bool shader_float16 = false;
  bool shader_int8 = false;
  bool subgroup_arithmetic = false;  // subgroupAdd etc. in compute shaders
  bool subgroup_shuffle = false;     // subgroupShuffleXor etc. in compute shaders
  bool subgroup_size_control = false;
  bool coopmat_nv = false;   // VK_NV_cooperative_matrix (what Debian 12's shaderc can target)
  bool coopmat_khr = false;  // VK_KHR_cooperative_matrix and its cooperativeMatrix feature
  // VK_NV_cooperative_matrix2 with what q4gsw_coopmat2 uses (workgroup scope, flexible
  // dimensions, tensor addressing, block loads, per-element operations), VK_KHR_cooperative_matrix
  // and bufferDeviceAddress (its decode functions take buffer references), on Vulkan 1.3.
  bool coopmat2_nv = false;
  // shaderIntegerDotProduct (Vulkan 1.3 or VK_KHR_shader_integer_dot_product): dotPacked4x8EXT
  bool shader_integer_dot_product = false;
  bool pipeline_executable_properties = false;
  bool portability_subset = false;  // must then be enabled (VK_KHR_portability_subset)
  std::vector<CoopMatShape> coopmat_shapes;      // VK_NV_cooperative_matrix's, subgroup scope
  std::vector<CoopMatShape> coopmat_khr_shapes;  // VK_KHR_cooperative_matrix's, subgroup scope
};

struct DeviceInfo {
  uint32_t index = 0;  // position in vkEnumeratePhysicalDevices
  std::string name;
  uint32_t vendor_id = 0;
  uint32_t device_id = 0;
  DeviceType type = DeviceType::other;
  uint32_t api_version = 0;
  uint32_t driver_version = 0;  // raw, vendor-encoded
  uint32_t driver_id = 0;       // VkDriverId
  std::string driver_name;
  std::string driver_info;
  std::array<uint8_t, kUuidSize> pipeline_cache_uuid{};
  uint32_t subgroup_size = 0;
  DeviceLimits limits;
  DeviceFeatures features;
  bool host_visible_device_memory = false;  // device-local memory the host may map cheaply
};

// driver_version decoded the way the vendor encodes it (NVIDIA 10.8.8.6 bits, Intel on
// Windows 18.14, everyone else VK_API_VERSION-style), e.g. "580.159.4.0".
std::string driver_version_text(uint32_t vendor_id, uint32_t driver_version);
std::string api_version_text(uint32_t api_version);
std::string uuid_hex(const std::array<uint8_t, kUuidSize>& uuid);

nlohmann::json to_json(const DeviceInfo& info);

}  // namespace vktune::vk
