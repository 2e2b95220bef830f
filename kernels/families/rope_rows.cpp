// rope_rows: vectorised rows (rope_rows.comp): a workgroup rotates `hpw` consecutive heads,
// each invocation `vec` pairs at a time, one vector load from each half of a head, so the head
// dim must be a multiple of 2 vec.
#include "kernels/families/families.h"

namespace vktune::kernels {
namespace {

class RopeRows final : public Family {
 public:
  explicit RopeRows(DType dtype)
      : Family("rope_rows", dtype, Op("rope"),
               {{"vec", ints({1, 2, 4})}, {"hpw", ints({1, 2, 4, 8})}, {"wg", ints({32, 64, 128})}}) {}

  Constraints constraints(const Knobs& k) const override {
    return {.k_multiple = 2 * knob_u32(k, "vec")};
  }
  Layout layout(const Knobs&) const override { return Layout::none; }
  uint32_t workgroup_size(const Knobs& k) const override { return knob_u32(k, "wg"); }
  uint32_t shared_bytes(const Knobs&) const override { return 0; }
  ShaderSpec source(const Knobs& k) const override {
    return {"rope_rows.comp", {{"VEC", str(knob_int(k, "vec"))}},
            {{0, knob_u32(k, "wg")}, {1, knob_u32(k, "hpw")}}};
  }
  std::array<uint32_t, 3> groups(const Knobs& k, const Problem& p,
                                 const vk::DeviceInfo& d) const override {
    return {clamp_groups(ceil_div(uint64_t{p.m} * p.heads, knob_u32(k, "hpw")), d), 1, 1};
  }
};

}  // namespace

VKTUNE_CATALOGUE_FAMILIES(rope_rows) {
  static const RopeRows f32(DType::f32), f16(DType::f16);
  return {&f32, &f16};
}

}  // namespace vktune::kernels
