// q4gsw_gemv_fast: decode GEMV (M <= 8) on the packed layout, built to stream weights at DRAM
// speed; see q4gsw_gemv_fast.comp for the lane mapping and why each knob matters on NVIDIA.
// q4gsw_gemv_fast_s16: the same kernel on the packed_s16 layout (fp16 scales interleaved), a
// family of its own so that the keys of the packed one stay as tuned databases hold them.
#include "kernels/families/families.h"

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
               Op::q4gsw,
               {{"wg", ints({64, 128, 256, 512, 1024})},
                {"ksplit", ints({1, 2, 4, 8, 16, 32})},
                {"npl", ints({1, 2, 4})},
                {"unroll", ints({1, 2, 4})},
                {"mmax", ints({1, 2, 4, 8})}}),
        layout_(layout) {}

  static uint32_t get(const Knobs& k, std::string_view name) {
    return static_cast<uint32_t>(knob_int(k, name));
  }
  static uint32_t lanes_along_n(const Knobs& k) { return get(k, "wg") / get(k, "ksplit"); }

  Constraints constraints(const Knobs& k) const override {
    // Whole 32-nibble blocks under one scale; the rows compiled in bound M from both sides.
    const uint32_t mmax = get(k, "mmax");
    return {32, 32, 1, mmax / 2 + 1, mmax};
  }
  Layout layout(const Knobs&) const override { return layout_; }
  uint32_t workgroup_size(const Knobs& k) const override { return get(k, "wg"); }
  uint32_t shared_bytes(const Knobs& k) const override {
    if (get(k, "ksplit") == 1) return 0;
    return get(k, "npl") * get(k, "mmax") * get(k, "wg") * 4;
  }
  ShaderSpec source(const Knobs& k) const override {
    ShaderSpec spec{"q4gsw_gemv_fast.comp",
                    {{"WG", str(get(k, "wg"))},
                     {"KSPLIT", str(get(k, "ksplit"))},
                     {"NPL", str(get(k, "npl"))},
                     {"UNROLL", str(get(k, "unroll"))},
                     {"MMAX", str(get(k, "mmax"))}}};
    if (layout_ == Layout::packed_s16) spec.defines.emplace_back("PACKED_S16", "1");
    return spec;
  }
  std::array<uint32_t, 3> groups(const Knobs& k, const Problem& p,
                                 const vk::DeviceInfo& d) const override {
    return {clamp_groups(ceil_div(p.n, uint64_t{lanes_along_n(k)} * get(k, "npl")), d), 1, 1};
  }

 protected:
  std::string combination_error(const Knobs& k) const override {
    // The inner body is npl * unroll * mmax blocks x rows, fully unrolled. Past 16 the
    // registers it holds (4 per block, one per accumulator, plus 32 dequantized weights) cut
    // NVIDIA occupancy below what more loads in flight buy back, and lavapipe's JIT takes 5-25 s
    // on the first dispatch (its fence times out). Large mmax already does mmax FMAs per load.
    const uint32_t body = get(k, "npl") * get(k, "unroll") * get(k, "mmax");
    if (body > 16) {
      return "npl * unroll * mmax = " + std::to_string(body) + " exceeds 16 blocks x rows";
    }
    return {};
  }
  std::string device_error(const Knobs& k, const Problem&,
                           const vk::DeviceInfo& d) const override {
    // The shader assumes a subgroup shares one K slice: that is what makes its x loads
    // broadcasts and its weight loads one contiguous run. Splitting a subgroup across slices
    // would still compute the right answer, only slower, so such variants are not offered.
    if (d.subgroup_size != 0 && lanes_along_n(k) % d.subgroup_size != 0) {
      return "wg/ksplit = " + std::to_string(lanes_along_n(k)) +
             " lanes along n is not a multiple of the subgroup size " +
             std::to_string(d.subgroup_size) + "; a subgroup must share one K slice";
    }
    return {};
  }

 private:
  Layout layout_;  // packed or packed_s16
};

}  // namespace

const Family& gemv_fast_family(DType dtype) {
  static const GemvFast f32(DType::f32, Layout::packed), f16(DType::f16, Layout::packed);
  return dtype == DType::f16 ? f16 : f32;
}

const Family& gemv_fast_s16_family(DType dtype) {
  static const GemvFast f32(DType::f32, Layout::packed_s16), f16(DType::f16, Layout::packed_s16);
  return dtype == DType::f16 ? f16 : f32;
}

}  // namespace vktune::kernels
