// The lane mapping q4gsw_gemv_fast and q4gsw_gemv_i8dot share (q4gsw_gemv_fast.comp describes
// it): the knobs wg, ksplit, npl, unroll and mmax, and the rules that follow from them alone.
// Each family adds what differs (its shader, shared memory, tolerance, requirements).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "kernels/family.h"

namespace vktune::kernels::gemv_lanes {

// wg / ksplit: the outputs a workgroup's lanes own side by side, each npl times.
uint32_t lanes_along_n(const Knobs& k);
// ... times npl: the outputs one workgroup computes.
uint32_t tile_outputs(const Knobs& k);
// `file` with the knobs' sizes as specialisation constants (wg 0, the workgroup size, ksplit 1,
// npl 2, unroll 3, mmax 4), one define, SPLIT, for whether the K slices hand over through shared
// memory (ksplit > 1), and PACKED_S16 for the packed_s16 layout.
ShaderSpec spec(std::string file, const Knobs& k, Layout layout);
// Whole 32-element blocks under one scale; the rows compiled in bound M from both sides (mmax
// serves M in (mmax/2, mmax], so exactly one value is legal for a given M).
Constraints constraints(const Knobs& k);
std::array<uint32_t, 3> groups(const Knobs& k, const Problem& p, const vk::DeviceInfo& d);
// Shared memory where the K slices hand their partial sums to slice 0 (none when ksplit = 1).
uint32_t handover_bytes(const Knobs& k);
// The fully unrolled inner body holds npl * unroll * mmax blocks x rows: past 16 its registers
// cut NVIDIA occupancy below what more loads in flight buy back, and lavapipe's JIT takes 5-25 s
// on the first dispatch (its fence times out). Empty when the combination is allowed.
std::string body_error(const Knobs& k);
// A subgroup must share one K slice: that is what makes x loads broadcasts and weight loads one
// contiguous run. Splitting a subgroup across slices would still compute the right answer, only
// slower, so such variants are not offered. Empty when allowed.
std::string subgroup_error(const Knobs& k, const vk::DeviceInfo& d);

}  // namespace vktune::kernels::gemv_lanes
