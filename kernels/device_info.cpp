// The device fingerprint as plain data: names, version texts, JSON.
#include "kernels/device_info.h"

#include <algorithm>
#include <cstdio>

#include <nlohmann/json.hpp>

namespace vktune::vk {
namespace {

// VK_API_VERSION_MAJOR/MINOR/PATCH, spelled out: this file builds without the Vulkan headers.
std::string version_text(uint32_t v) {
  char text[32];
  std::snprintf(text, sizeof text, "%u.%u.%u", (v >> 22) & 0x7fu, (v >> 12) & 0x3ffu, v & 0xfffu);
  return text;
}

// The shapes as JSON objects {"m", "n", "k", "a", "b", "c", "result"}.
nlohmann::json to_json(const std::vector<CoopMatShape>& shapes) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& s : shapes) {
    out.push_back({{"m", s.m}, {"n", s.n}, {"k", s.k}, {"a", s.a_type}, {"b", s.b_type},
                   {"c", s.c_type}, {"result", s.result_type}});
  }
  return out;
}

}  // namespace

std::string driver_version_text(uint32_t vendor_id, uint32_t v) {
  char text[48];
  if (vendor_id == 0x10de) {  // NVIDIA: 10.8.8.6 bits
    std::snprintf(text, sizeof text, "%u.%u.%u.%u", v >> 22, (v >> 14) & 0xff, (v >> 6) & 0xff,
                  v & 0x3f);
    return text;
  }
  return version_text(v);
}

std::string api_version_text(uint32_t v) { return version_text(v); }

std::string uuid_hex(const std::array<uint8_t, kUuidSize>& uuid) {
  std::string hex;
  char byte[3];
  for (uint8_t b : uuid) {
    std::snprintf(byte, sizeof byte, "%02x", b);
    hex += byte;
  }
  return hex;
}

bool has_f16_tile(const std::vector<CoopMatShape>& shapes) {
  return std::any_of(shapes.begin(), shapes.end(), [](const CoopMatShape& s) {
    return s.m == 16 && s.n == 16 && s.k == 16 && s.a_type == "f16" && s.b_type == "f16" &&
           s.c_type == "f32" && s.result_type == "f32";
  });
}

nlohmann::json to_json(const DeviceInfo& info) {
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
        {"timestamp_valid_bits", l.timestamp_valid_bits},
        {"compute_units", l.compute_units}}},
      {"features",
       {{"storage_8bit", f.storage_8bit},
        {"storage_16bit", f.storage_16bit},
        {"shader_float16", f.shader_float16},
        {"shader_int8", f.shader_int8},
        {"subgroup_arithmetic", f.subgroup_arithmetic},
        {"subgroup_shuffle", f.subgroup_shuffle},
        {"subgroup_size_control", f.subgroup_size_control},
        {"coopmat_nv", f.coopmat_nv},
        {"coopmat_khr", f.coopmat_khr},
        {"coopmat2_nv", f.coopmat2_nv},
        {"shader_integer_dot_product", f.shader_integer_dot_product},
        {"pipeline_executable_properties", f.pipeline_executable_properties},
        {"portability_subset", f.portability_subset},
        {"coopmat_shapes", to_json(info.features.coopmat_shapes)},
        {"coopmat_khr_shapes", to_json(info.features.coopmat_khr_shapes)}}},
      {"host_visible_device_memory", info.host_visible_device_memory},
  };
}

}  // namespace vktune::vk
