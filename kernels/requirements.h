// The device features a variant's shader needs, as data: Family::legality checks them and the
// runtime's dispatch plan lists them for an engine to enable (runtime/dispatch.h), so the two
// cannot disagree. Names are Vulkan's. Also the GLSL extensions its source needs the shader
// compiler to accept, which only the tuner's own build checks (an engine gets SPIR-V).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "kernels/compiler_support.h"
#include "kernels/device_info.h"

namespace vktune::kernels {

// One bit per feature; the values are the C API's VKTUNE_FEATURE_* (runtime/vktune_runtime.h).
enum class Feature : uint32_t {
  storage_buffer_16bit = 1u << 0,   // VkPhysicalDeviceVulkan11Features::storageBuffer16BitAccess
  shader_float16 = 1u << 1,         // VkPhysicalDeviceVulkan12Features::shaderFloat16
  subgroup_arithmetic = 1u << 2,    // VK_SUBGROUP_FEATURE_ARITHMETIC_BIT in compute shaders
  cooperative_matrix_nv = 1u << 3,  // VK_NV_cooperative_matrix and its cooperativeMatrix feature
  // VkPhysicalDeviceVulkan13Features::shaderIntegerDotProduct (dotPacked4x8EXT)
  shader_integer_dot_product = 1u << 4,
  // VK_NV_cooperative_matrix2 and what DeviceFeatures::coopmat2_nv lists with it
  cooperative_matrix2_nv = 1u << 5,
  // VK_KHR_cooperative_matrix and its cooperativeMatrix feature
  cooperative_matrix_khr = 1u << 6,
  subgroup_shuffle = 1u << 7,  // VK_SUBGROUP_FEATURE_SHUFFLE_BIT in compute shaders
};

struct FeatureDesc {
  Feature feature;
  std::string_view name;  // what an engine enables or checks: a feature, bit or extension name
  std::string_view why;   // for the legality message: "... needs <why>"
  bool vk::DeviceFeatures::*supported;  // where DeviceInfo says whether the device has it
};

// Every Feature, in bit order.
std::span<const FeatureDesc> feature_descs();

struct Requirements {
  uint32_t features = 0;  // Feature bits
  // The subgroup size the shader assumes (SG_SIZE); 0: any.
  uint32_t subgroup_size = 0;
  // The device's subgroup size must divide this (whole subgroups per output row); 0: any.
  uint32_t subgroup_size_divides = 0;
  // GlslExtension bits the shader compiler must accept to build the shader at all.
  uint32_t compiler = 0;

  bool has(Feature f) const noexcept { return (features & static_cast<uint32_t>(f)) != 0; }
  bool needs(GlslExtension e) const noexcept {
    return (compiler & static_cast<uint32_t>(e)) != 0;
  }
  Requirements& add(Feature f) noexcept {
    features |= static_cast<uint32_t>(f);
    return *this;
  }
  Requirements& add(GlslExtension e) noexcept {
    compiler |= static_cast<uint32_t>(e);
    return *this;
  }
  friend bool operator==(const Requirements&, const Requirements&) = default;
};

// The names of the required features, in bit order: "storageBuffer16BitAccess", ...
std::vector<std::string> feature_names(const Requirements& r);

// Empty when `device` meets `r`; else the first unmet requirement, naming the device, the
// feature and `family`: "llvmpipe lacks storageBuffer16BitAccess, which q4gsw_gemv_f16 needs
// for its fp16 tensors".
std::string check(const Requirements& r, const vk::DeviceInfo& device, std::string_view family);

// Empty when `compiler` accepts every GLSL extension `r` needs; else the first it lacks, naming
// `family` and the fix: "q4gsw_gemv_i8dot needs a shader compiler that accepts
// GL_EXT_integer_dot_product, which the linked shaderc does not; build the newer one ...".
std::string check(const Requirements& r, const CompilerSupport& compiler, std::string_view family);

}  // namespace vktune::kernels
