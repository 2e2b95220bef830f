// The family descriptors (one per file in this folder); use kernels::families() /
// find_family() rather than these directly.
#pragma once

#include "kernels/family.h"

namespace vktune::kernels {

const Family& naive_family(DType dtype);
const Family& tiled_family(DType dtype);
const Family& gemv_family(DType dtype);
const Family& gemv_fast_family(DType dtype);
const Family& gemv_fast_s16_family(DType dtype);  // q4gsw_gemv_fast on packed_s16
const Family& gemv_i8dot_family(DType dtype);     // int8 x, integer dot products
const Family& gemv_i8dot_s16_family(DType dtype); // q4gsw_gemv_i8dot on packed_s16
const Family& gemv_i8dot_splitk_family(DType dtype);      // the same, K split across workgroups
const Family& gemv_i8dot_splitk_s16_family(DType dtype);  // ... on packed_s16
const Family& coopmat_family(DType dtype);
const Family& coopmat_splitk_family(DType dtype);
const Family& coopmat_khr_family(DType dtype);         // GL_KHR_cooperative_matrix
const Family& coopmat_splitk_khr_family(DType dtype);  // the same, split K
const Family& coopmat_khr_packed_family(DType dtype);         // the KHR tiles, packed layout
const Family& coopmat_splitk_khr_packed_family(DType dtype);  // the same, split K
const Family& coopmat_ws_family(DType dtype);         // ... with staging-only subgroups
const Family& coopmat_ws_splitk_family(DType dtype);  // the same, split K
const Family& coopmat2_family(DType dtype);       // GL_NV_cooperative_matrix2
const Family& rms_norm_family(DType dtype);
const Family& sdpa_naive_family(DType dtype);
const Family& sdpa_fused_family(DType dtype);
const Family& sdpa_split_family(DType dtype);
const Family& sdpa_decode_family(DType dtype);  // a few tokens, at the memory roof
const Family& sdpa_flash_family();  // fp16 only: prefill on tensor cores
const Family& rope_pairs_family(DType dtype);
const Family& rope_rows_family(DType dtype);

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

}  // namespace vktune::kernels
