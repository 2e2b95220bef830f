// rope_pairs: one invocation per rotated pair (rope_pairs.comp), the rope baseline.
#include "kernels/families/families.h"

namespace vktune::kernels {
namespace {

class RopePairs final : public Family {
 public:
  explicit RopePairs(DType dtype)
      : Family("rope_pairs", dtype, Op("rope"), {{"wg", ints({64, 128, 256, 512})}}) {}

  Constraints constraints(const Knobs&) const override { return {}; }
  Layout layout(const Knobs&) const override { return Layout::none; }
  uint32_t workgroup_size(const Knobs& k) const override { return knob_u32(k, "wg"); }
  uint32_t shared_bytes(const Knobs&) const override { return 0; }
  ShaderSpec source(const Knobs& k) const override {
    return {"rope_pairs.comp", {}, {{0, knob_u32(k, "wg")}}};
  }
  // Grid-stride over the M x heads x D/2 pairs.
  std::array<uint32_t, 3> groups(const Knobs& k, const Problem& p,
                                 const vk::DeviceInfo& d) const override {
    const uint64_t pairs = uint64_t{p.m} * p.heads * (p.k / 2);
    return {clamp_groups(ceil_div(pairs, workgroup_size(k)), d), 1, 1};
  }
};

}  // namespace

VKTUNE_CATALOGUE_FAMILIES(rope_pairs) {
  static const RopePairs f32(DType::f32), f16(DType::f16);
  return {&f32, &f16};
}

}  // namespace vktune::kernels
