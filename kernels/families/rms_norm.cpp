// rms_norm: one workgroup per row, scalar or vec4, shared-memory reduction.
#include "kernels/families/families.h"

namespace vktune::kernels {
namespace {

class RmsNorm final : public Family {
 public:
  explicit RmsNorm(DType dtype)
      : Family("rms_norm", dtype, Op("rms_norm"),
               {{"vec", ints({1, 4})}, {"wg", ints({32, 64, 128, 256, 512})}}) {}

  Constraints constraints(const Knobs& k) const override {
    return {1, 1, knob_u32(k, "vec"), 1, 0};
  }
  Layout layout(const Knobs&) const override { return Layout::none; }
  uint32_t workgroup_size(const Knobs& k) const override {
    return knob_u32(k, "wg");
  }
  uint32_t shared_bytes(const Knobs& k) const override { return workgroup_size(k) * 4; }
  ShaderSpec source(const Knobs& k) const override {
    // vec chooses the load type (a code path); wg is a size.
    return {"rms_norm.comp", {{"VEC", str(knob_int(k, "vec"))}}, {{0, knob_u32(k, "wg")}}};
  }
  std::array<uint32_t, 3> groups(const Knobs&, const Problem& p,
                                 const vk::DeviceInfo& d) const override {
    return {clamp_groups(p.m, d), 1, 1};
  }
};

}  // namespace

VKTUNE_CATALOGUE_FAMILIES(rms_norm) {
  static const RmsNorm f32(DType::f32), f16(DType::f16);
  return {&f32, &f16};
}

}  // namespace vktune::kernels
