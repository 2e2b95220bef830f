// q4gsw_gemv: cooperative GEMV for decode (M <= 8); see q4gsw_gemv.comp.
#include "kernels/families/families.h"

namespace vktune::kernels {
namespace {

constexpr uint32_t kMaxM = 8;  // MMAX in the shader

class Gemv final : public Family {
 public:
  explicit Gemv(DType dtype)
      : Family("q4gsw_gemv", dtype, Op("q4gsw"),
               {{"layout", words({"raw", "packed", "packed_s16"})},
                {"wg", ints({32, 64, 128, 256})},
                {"rows", ints({1, 2, 4, 8})},
                {"load", words({"u32", "u32x4"})},
                {"reduce", words({"shared", "subgroup"})}}) {}

  static Layout layout_of(const Knobs& k) {
    return *layout_from_name(knob_word(k, "layout"));  // a candidate value: raw, packed*
  }
  // Lanes of neighbouring outputs adjacent (the packed layouts) rather than one output's lanes.
  static bool packed(const Knobs& k) { return layout_of(k) != Layout::raw; }
  // The shader's PACKED: 0 raw, 1 packed, 2 packed_s16.
  static const char* packed_define(const Knobs& k) {
    return !packed(k) ? "0" : layout_of(k) == Layout::packed ? "1" : "2";
  }
  static bool x4(const Knobs& k) { return knob_word(k, "load") == "u32x4"; }
  static bool subgroup(const Knobs& k) { return knob_word(k, "reduce") == "subgroup"; }
  static uint32_t lanes_per_row(const Knobs& k) {
    return static_cast<uint32_t>(knob_int(k, "wg") / knob_int(k, "rows"));
  }

  Constraints constraints(const Knobs& k) const override {
    // Nibbles per load, all under one scale; packed_s16 tiles hold whole 32-nibble blocks.
    const uint32_t chunk = x4(k) || layout_of(k) == Layout::packed_s16 ? 32 : 8;
    return {chunk, chunk, 1, 1, kMaxM};
  }
  Layout layout(const Knobs& k) const override { return layout_of(k); }
  uint32_t workgroup_size(const Knobs& k) const override {
    return knob_u32(k, "wg");
  }
  uint32_t shared_bytes(const Knobs& k) const override { return kMaxM * workgroup_size(k) * 4; }
  // The load width, the reduction and the layout choose code paths; wg and rows are sizes.
  ShaderSpec source(const Knobs& k) const override {
    return {"q4gsw_gemv.comp",
            {{"LOAD_X4", x4(k) ? "1" : "0"},
             {"REDUCE_SUBGROUP", subgroup(k) ? "1" : "0"},
             {"PACKED", packed_define(k)}},
            {{0, knob_u32(k, "wg")}, {1, knob_u32(k, "rows")}}};
  }
  std::array<uint32_t, 3> groups(const Knobs& k, const Problem& p,
                                 const vk::DeviceInfo& d) const override {
    return {clamp_groups(ceil_div(p.n, knob_int(k, "rows")), d), 1, 1};
  }

 protected:
  std::string combination_error(const Knobs& k) const override {
    if (subgroup(k) && packed(k) && knob_int(k, "rows") > 1) {
      return "reduce=subgroup needs one output's lanes in whole subgroups, which the packed "
             "layout's lane order gives only with rows=1";
    }
    return {};
  }
  Requirements shader_requirements(const Knobs& k) const override {
    if (!subgroup(k)) return {};
    Requirements r;
    r.add(Feature::subgroup_arithmetic).subgroup_size_divides = lanes_per_row(k);
    return r;
  }
};

}  // namespace

VKTUNE_CATALOGUE_FAMILIES(q4gsw_gemv) {
  static const Gemv f32(DType::f32), f16(DType::f16);
  return {&f32, &f16};
}

}  // namespace vktune::kernels
