// The rules of the lane mapping the decode GEMV families share (gemv_lanes.h).
#include "kernels/families/gemv_lanes.h"

#include "kernels/families/families.h"

#include <iterator>
#include <utility>

namespace vktune::kernels::gemv_lanes {

uint32_t lanes_along_n(const Knobs& k) { return knob_u32(k, "wg") / knob_u32(k, "ksplit"); }

uint32_t tile_outputs(const Knobs& k) { return lanes_along_n(k) * knob_u32(k, "npl"); }

ShaderSpec spec(std::string file, const Knobs& k, Layout layout) {
  // In constant_id order.
  static constexpr const char* kSizeKnobs[] = {"wg", "ksplit", "npl", "unroll", "mmax"};
  ShaderSpec s{std::move(file), {}};
  for (uint32_t id = 0; id < std::size(kSizeKnobs); ++id) {
    s.specialization.push_back({id, knob_u32(k, kSizeKnobs[id])});
  }
  s.defines.emplace_back("SPLIT", knob_u32(k, "ksplit") > 1 ? "1" : "0");
  if (layout == Layout::packed_s16) s.defines.emplace_back("PACKED_S16", "1");
  return s;
}

Constraints constraints(const Knobs& k) {
  const uint32_t mmax = knob_u32(k, "mmax");
  return {32, 32, 1, mmax / 2 + 1, mmax};
}

std::array<uint32_t, 3> groups(const Knobs& k, const Problem& p, const vk::DeviceInfo& d) {
  return {clamp_groups(ceil_div(p.n, uint64_t{tile_outputs(k)}), d), 1, 1};
}

uint32_t handover_bytes(const Knobs& k) {
  if (knob_u32(k, "ksplit") == 1) return 0;
  return knob_u32(k, "npl") * knob_u32(k, "mmax") * knob_u32(k, "wg") * 4;
}

std::string body_error(const Knobs& k) {
  const uint32_t body = knob_u32(k, "npl") * knob_u32(k, "unroll") * knob_u32(k, "mmax");
  if (body > 16) {
    return "npl * unroll * mmax = " + std::to_string(body) + " exceeds 16 blocks x rows";
  }
  return {};
}

std::string subgroup_error(const Knobs& k, const vk::DeviceInfo& d) {
  if (d.subgroup_size != 0 && lanes_along_n(k) % d.subgroup_size != 0) {
    return "wg/ksplit = " + std::to_string(lanes_along_n(k)) +
           " lanes along n is not a multiple of the subgroup size " +
           std::to_string(d.subgroup_size) + "; a subgroup must share one K slice";
  }
  return {};
}

}  // namespace vktune::kernels::gemv_lanes
