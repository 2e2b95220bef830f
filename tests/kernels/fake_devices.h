// Device and compiler descriptions for tests that ask the catalogue about legality without a
// device: what lavapipe (Mesa 22.3, Vulkan 1.3) and an H100 report, as far as the families look,
// and a shader compiler that accepts every optional GLSL extension.
#pragma once

#include "kernels/compiler_support.h"
#include "kernels/device_info.h"

namespace vktune::kernels::test {

inline vk::DeviceInfo lavapipe_like() {
  vk::DeviceInfo d;
  d.name = "llvmpipe (fake)";
  d.type = vk::DeviceType::cpu;
  d.subgroup_size = 8;
  d.limits.max_invocations = 1024;
  d.limits.max_workgroup_size = {1024, 1024, 1024};
  d.limits.max_workgroup_count = {65535, 65535, 65535};
  d.limits.max_shared_memory_bytes = 32768;
  d.limits.max_storage_buffer_range = 128u << 20;
  d.features.subgroup_arithmetic = true;
  d.features.subgroup_shuffle = true;
  d.features.storage_16bit = true;
  d.features.shader_integer_dot_product = true;  // Vulkan 1.3 core
  return d;
}

inline vk::DeviceInfo h100_like() {
  vk::DeviceInfo d = lavapipe_like();
  d.name = "NVIDIA H100 (fake)";
  d.type = vk::DeviceType::discrete;
  d.subgroup_size = 32;
  d.limits.max_shared_memory_bytes = 49152;
  d.limits.max_storage_buffer_range = 0xFFFFFFFFull;
  d.limits.max_workgroup_count = {0x7FFFFFFF, 65535, 65535};
  d.features.shader_float16 = true;
  d.features.coopmat_nv = true;
  d.features.coopmat_shapes = {{16, 16, 16, "f16", "f16", "f32", "f32"},
                               {16, 8, 16, "f16", "f16", "f16", "f16"}};
  return d;
}

// An H100 as the NV families see it, plus VK_KHR_cooperative_matrix with its f16 tile.
inline vk::DeviceInfo h100_with_khr() {
  vk::DeviceInfo d = h100_like();
  d.features.coopmat_khr = true;
  d.features.coopmat_khr_shapes = {{16, 16, 16, "f16", "f16", "f32", "f32"}};
  return d;
}

// The newer compiler as the probe finds it: every GlslExtension accepted.
inline CompilerSupport newer_compiler() {
  CompilerSupport c;
  for (const GlslExtensionDesc& e : glsl_extension_descs()) c.add(e.extension);
  return c;
}

}  // namespace vktune::kernels::test
