// q4gsw_gemv_fast: decode GEMV (M <= 8) on the packed layout, built to stream weights at DRAM
// speed; see q4gsw_gemv_fast.comp for the lane mapping and why each knob matters on NVIDIA.
// q4gsw_gemv_fast_s16: the same kernel on the packed_s16 layout (fp16 scales interleaved), a
// family of its own so that the keys of the packed one stay as tuned databases hold them.
#include "kernels/families/families.h"
#include "kernels/families/gemv_lanes.h"

namespace vktune::kernels {
namespace {

class GemvFast final : public Family {
 public:
  // wg: invocations; ksplit: K slices per workgroup (wg / ksplit lanes along n, one output each
  // per npl). Large wg and ksplit keep warps and loads in flight where N is too small to fill
  // the GPU with workgroups: a tile is at least a subgroup wide, so N = 4096 gives 128 of them,
  // one per SM, and on the H100 wg 1024 / ksplit 32 ran M = 1, N = 4096, K = 14336 in 22 us
  // against 29 us with 512 / 16. npl: outputs per lane (x reuse and independent loads);
  // unroll: 16-byte blocks per output loaded before any arithmetic (bytes in flight; 8 never
  // won there); mmax: rows of x compiled in (serves M in (mmax/2, mmax], so exactly one value
  // is legal for a given M).
  GemvFast(DType dtype, Layout layout)
      : Family(layout == Layout::packed_s16 ? "q4gsw_gemv_fast_s16" : "q4gsw_gemv_fast", dtype,
               Op("q4gsw"),
               {{"wg", ints({64, 128, 256, 512, 1024})},
                {"ksplit", ints({1, 2, 4, 8, 16, 32})},
                {"npl", ints({1, 2, 4})},
                {"unroll", ints({1, 2, 4})},
                {"mmax", ints({1, 2, 4, 8})}}),
        layout_(layout) {}

  Constraints constraints(const Knobs& k) const override { return gemv_lanes::constraints(k); }
  Layout layout(const Knobs&) const override { return layout_; }
  uint32_t workgroup_size(const Knobs& k) const override { return knob_u32(k, "wg"); }
  uint32_t shared_bytes(const Knobs& k) const override { return gemv_lanes::handover_bytes(k); }
  ShaderSpec source(const Knobs& k) const override {
    return gemv_lanes::spec("q4gsw_gemv_fast.comp", k, layout_);
  }
  std::array<uint32_t, 3> groups(const Knobs& k, const Problem& p,
                                 const vk::DeviceInfo& d) const override {
    return gemv_lanes::groups(k, p, d);
  }

 protected:
  std::string combination_error(const Knobs& k) const override {
    // Large mmax already does mmax FMAs per load (gemv_lanes.h has the rest).
    return gemv_lanes::body_error(k);
  }
  std::string device_error(const Knobs& k, const Problem&,
                           const vk::DeviceInfo& d) const override {
    return gemv_lanes::subgroup_error(k, d);
  }

 private:
  Layout layout_;  // packed or packed_s16
};

}  // namespace

VKTUNE_CATALOGUE_FAMILIES(q4gsw_gemv_fast) {
  static const GemvFast f32(DType::f32, Layout::packed), f16(DType::f16, Layout::packed);
  static const GemvFast s16_f32(DType::f32, Layout::packed_s16),
      s16_f16(DType::f16, Layout::packed_s16);
  return {&f32, &f16, &s16_f32, &s16_f16};
}

}  // namespace vktune::kernels
