// The feature table and the check of a device against a variant's requirements.
#include "kernels/requirements.h"

namespace vktune::kernels {

std::span<const FeatureDesc> feature_descs() {
  static constexpr FeatureDesc kAll[] = {
      {Feature::storage_buffer_16bit, "storageBuffer16BitAccess", "for its fp16 tensors",
       &vk::DeviceFeatures::storage_16bit},
      {Feature::shader_float16, "shaderFloat16", "for fp16 arithmetic",
       &vk::DeviceFeatures::shader_float16},
      {Feature::subgroup_arithmetic, "VK_SUBGROUP_FEATURE_ARITHMETIC_BIT",
       "for subgroupAdd in compute shaders", &vk::DeviceFeatures::subgroup_arithmetic},
      {Feature::cooperative_matrix_nv, "VK_NV_cooperative_matrix", "for its tensor-core tiles",
       &vk::DeviceFeatures::coopmat_nv},
      {Feature::shader_integer_dot_product, "shaderIntegerDotProduct", "for its int8 dot products",
       &vk::DeviceFeatures::shader_integer_dot_product},
      {Feature::cooperative_matrix2_nv, "VK_NV_cooperative_matrix2",
       "for its workgroup-scope tensor-core tiles", &vk::DeviceFeatures::coopmat2_nv},
      {Feature::cooperative_matrix_khr, "VK_KHR_cooperative_matrix", "for its tensor-core tiles",
       &vk::DeviceFeatures::coopmat_khr},
      {Feature::subgroup_shuffle, "VK_SUBGROUP_FEATURE_SHUFFLE_BIT",
       "for subgroupShuffleXor in compute shaders", &vk::DeviceFeatures::subgroup_shuffle},
  };
  return kAll;
}

std::vector<std::string> feature_names(const Requirements& r) {
  std::vector<std::string> out;
  for (const FeatureDesc& f : feature_descs()) {
    if (r.has(f.feature)) out.emplace_back(f.name);
  }
  return out;
}

std::string check(const Requirements& r, const vk::DeviceInfo& device, std::string_view family) {
  for (const FeatureDesc& f : feature_descs()) {
    if (r.has(f.feature) && !(device.features.*f.supported)) {
      return device.name + " lacks " + std::string(f.name) + ", which " + std::string(family) +
             " needs " + std::string(f.why);
    }
  }
  const uint32_t size = device.subgroup_size;
  if (r.subgroup_size != 0 && size != r.subgroup_size) {
    return std::string(family) + " needs subgroup size " + std::to_string(r.subgroup_size) +
           "; " + device.name + " has subgroup size " + std::to_string(size);
  }
  if (r.subgroup_size_divides != 0 && (size == 0 || r.subgroup_size_divides % size != 0)) {
    return std::string(family) + " needs whole subgroups per output: " +
           std::to_string(r.subgroup_size_divides) + " lanes is not a multiple of " +
           device.name + "'s subgroup size " + std::to_string(size);
  }
  return {};
}

std::string check(const Requirements& r, const CompilerSupport& compiler, std::string_view family) {
  for (const GlslExtensionDesc& e : glsl_extension_descs()) {
    if (r.needs(e.extension) && !compiler.accepts(e.extension)) {
      return std::string(family) + " needs a shader compiler that accepts " + std::string(e.name) +
             ", which the linked shaderc does not; " + std::string(kNewerCompilerHint);
    }
  }
  return {};
}

}  // namespace vktune::kernels
