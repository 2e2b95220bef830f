// Split-K's shortest K and workspace, shared by the families that split K across workgroups
// (q4gsw_coopmat_splitk, q4gsw_coopmat2 with splitk > 1, q4gsw_gemv_i8dot_splitk). Where a split
// pays at all, its tiles leaving the GPU room, is each one's Constraints::split.
#pragma once

#include <cstdint>

namespace vktune::kernels::splitk {

// Each slice keeps at least this many k-steps, or the split is all prologue and hand-over.
inline constexpr uint32_t kMinStepsPerSlice = 2;

// The shortest K whose k-steps of `bk` (the last one possibly partial) give each of `slices`
// slices kMinStepsPerSlice: the tensor-core tiles' Constraints::k_min.
constexpr uint32_t min_k(uint32_t slices, uint32_t bk) {
  return (kMinStepsPerSlice * slices - 1) * bk + 1;
}

// Bytes of the workspace: a counter per output tile (rounded up to 16, so the partials start
// 64-byte aligned), then every slice's fp32 partial of every tile.
uint64_t workspace_bytes(uint64_t tiles, uint32_t bm, uint32_t bn, uint32_t slices);

}  // namespace vktune::kernels::splitk
