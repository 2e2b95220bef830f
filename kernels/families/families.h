// What the family descriptors (one or a few per file in this folder, each file registered with
// VKTUNE_CATALOGUE_FAMILIES: kernels/catalogue_registry.h) share. Everyone else asks
// kernels::families() / find_family().
#pragma once

#include "kernels/catalogue_registry.h"
#include "kernels/family.h"

namespace vktune::kernels {

// Helpers for the descriptors.
inline KnobValue word(const char* w) { return KnobValue(std::string(w)); }
inline std::vector<KnobValue> ints(std::initializer_list<int64_t> values) {
  return {values.begin(), values.end()};
}
inline std::vector<KnobValue> words(std::initializer_list<const char*> values) {
  std::vector<KnobValue> v;
  for (const char* w : values) v.push_back(word(w));
  return v;
}
inline uint32_t clamp_groups(uint64_t wanted, const vk::DeviceInfo& device) {
  const uint64_t max = device.limits.max_workgroup_count[0] ? device.limits.max_workgroup_count[0]
                                                            : 65535;
  return static_cast<uint32_t>(std::max<uint64_t>(1, std::min(wanted, max)));
}
inline std::string str(int64_t v) { return std::to_string(v); }

// Why `device` cannot run the 16x16x16 f16*f16+f32 tile the cooperative-matrix families multiply
// in, through VK_KHR_cooperative_matrix (khr) or VK_NV_cooperative_matrix; "" where it can.
inline std::string f16_tile_error(const vk::DeviceInfo& device, bool khr) {
  if (vk::has_f16_tile(khr ? device.features.coopmat_khr_shapes : device.features.coopmat_shapes)) {
    return {};
  }
  return device.name + " lacks the cooperative-matrix shape 16x16x16 f16*f16+f32" +
         (khr ? " (VK_KHR_cooperative_matrix)" : "");
}

// Workspace bytes of an sdpa kernel split over the cache (sdpa_split_merge.glsl, and
// sdpa_decode.comp's own hand-over): a counter per tile, (m, l) per (tile, split, row), each
// rounded up to 4 words, then O [tile, split, rows, head_dim]; fp32.
inline uint64_t sdpa_split_workspace_bytes(uint64_t tiles, uint64_t splits, uint64_t rows,
                                           uint64_t head_dim) {
  const uint64_t states = tiles * splits * rows;
  return (ceil_div(tiles, 4) * 4 + ceil_div(2 * states, 4) * 4 + states * head_dim) * 4;
}

}  // namespace vktune::kernels
