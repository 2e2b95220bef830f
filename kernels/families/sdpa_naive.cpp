// sdpa_naive: the three-pass baseline (sdpa_naive.comp), scores in the workspace.
#include "kernels/families/families.h"

namespace vktune::kernels {
namespace {

class SdpaNaive final : public Family {
 public:
  explicit SdpaNaive(DType dtype)
      : Family("sdpa_naive", dtype, Op("sdpa"), {{"wg", ints({32, 64, 128, 256})}}) {}

  Constraints constraints(const Knobs&) const override { return {}; }
  Layout layout(const Knobs&) const override { return Layout::none; }
  uint32_t workgroup_size(const Knobs& k) const override {
    return knob_u32(k, "wg");
  }
  uint32_t shared_bytes(const Knobs& k) const override { return workgroup_size(k) * 4; }
  // The scores [M, heads, L] between the passes, fp32 in either dtype.
  uint64_t workspace_bytes(const Knobs&, const Problem& p) const override {
    return uint64_t{p.m} * p.heads * p.n * 4;
  }
  ShaderSpec source(const Knobs& k) const override {
    return {"sdpa_naive.comp", {}, {{0, knob_u32(k, "wg")}}};
  }
  std::array<uint32_t, 3> groups(const Knobs&, const Problem& p,
                                 const vk::DeviceInfo& d) const override {
    return {clamp_groups(uint64_t{p.m} * p.heads, d), 1, 1};
  }
};

}  // namespace

VKTUNE_CATALOGUE_FAMILIES(sdpa_naive) {
  static const SdpaNaive f32(DType::f32), f16(DType::f16);
  return {&f32, &f16};
}

}  // namespace vktune::kernels
