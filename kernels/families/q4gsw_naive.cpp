// q4gsw_naive: one workgroup per output row, threads striding N, scalar K loop. The baseline.
#include "kernels/families/families.h"

namespace vktune::kernels {
namespace {

class Naive final : public Family {
 public:
  explicit Naive(DType dtype)
      : Family("q4gsw_naive", dtype, Op("q4gsw"), {{"wg", ints({32, 64, 128, 256})}}) {}

  Constraints constraints(const Knobs&) const override { return {2, 2, 1, 1, 0}; }
  Layout layout(const Knobs&) const override { return Layout::raw; }
  uint32_t workgroup_size(const Knobs& k) const override {
    return knob_u32(k, "wg");
  }
  uint32_t shared_bytes(const Knobs&) const override { return 0; }
  ShaderSpec source(const Knobs& k) const override {
    return {"q4gsw_naive.comp", {}, {{0, knob_u32(k, "wg")}}};
  }
  std::array<uint32_t, 3> groups(const Knobs&, const Problem& p,
                                 const vk::DeviceInfo& d) const override {
    return {clamp_groups(p.m, d), 1, 1};
  }
};

}  // namespace

VKTUNE_CATALOGUE_FAMILIES(q4gsw_naive) {
  static const Naive f32(DType::f32), f16(DType::f16);
  return {&f32, &f16};
}

}  // namespace vktune::kernels
