// q4gsw_gemv_i8dot: decode GEMV (M <= 8) on the packed layout with x quantised to int8 per
// 32-element block and integer dot products (see q4gsw_gemv_i8dot.comp).
// q4gsw_gemv_i8dot_s16: the same kernel on the packed_s16 layout (fp16 scales interleaved). Needs a compiler that
// accepts GL_EXT_integer_dot_product (not Debian 12's shaderc: tools/setup-newer-shaderc.sh)
// and a device with shaderIntegerDotProduct; its tolerance adds x's rounding to int8.
#include <algorithm>

#include "kernels/families/families.h"
#include "kernels/families/reference.h"

namespace vktune::kernels {
namespace {

class GemvI8Dot final : public Family {
 public:
  // The knobs of q4gsw_gemv_fast, npl with fewer values: wg: invocations; ksplit: K slices
  // per workgroup; npl: outputs per lane; unroll: 16-byte blocks per output loaded before any
  // arithmetic (bytes in flight); mmax: rows of x compiled in (serves M in (mmax/2, mmax]).
  // wg up to 1024 and ksplit up to 32 for the reason gemv_fast has them: at N = 4096 a
  // subgroup-wide tile makes 128 workgroups, one an SM on the H100, and only more warps per
  // workgroup put more loads in flight.
  GemvI8Dot(DType dtype, Layout layout)
      : Family(layout == Layout::packed_s16 ? "q4gsw_gemv_i8dot_s16" : "q4gsw_gemv_i8dot", dtype,
               Op::q4gsw,
               {{"wg", ints({64, 128, 256, 512, 1024})},
                {"ksplit", ints({1, 2, 4, 8, 16, 32})},
                {"npl", ints({1, 2})},
                {"unroll", ints({1, 2, 4})},
                {"mmax", ints({1, 2, 4, 8})}}),
        layout_(layout) {}

  static uint32_t get(const Knobs& k, std::string_view name) {
    return static_cast<uint32_t>(knob_int(k, name));
  }
  static uint32_t lanes_along_n(const Knobs& k) { return get(k, "wg") / get(k, "ksplit"); }
  // Blocks of each row quantised per chunk, as CB in the shader.
  static uint32_t chunk_blocks(const Knobs& k) {
    return std::max(get(k, "wg") / get(k, "mmax"), get(k, "ksplit") * get(k, "unroll"));
  }

  Constraints constraints(const Knobs& k) const override {
    // Whole 32-element blocks, of x (one int8 scale) and of the weight (one weight scale).
    const uint32_t mmax = get(k, "mmax");
    return {32, 32, 1, mmax / 2 + 1, mmax};
  }
  Layout layout(const Knobs&) const override { return layout_; }
  uint32_t workgroup_size(const Knobs& k) const override { return get(k, "wg"); }
  uint32_t shared_bytes(const Knobs& k) const override {
    // Per row and block of a chunk: 32 int8 and a float scale; then the slices' hand-over.
    const uint32_t chunk = get(k, "mmax") * chunk_blocks(k) * (32 + 4);
    const uint32_t red =
        get(k, "ksplit") == 1 ? 0 : get(k, "npl") * get(k, "mmax") * get(k, "wg") * 4;
    return chunk + red;
  }
  ShaderSpec source(const Knobs& k) const override {
    ShaderSpec spec{"q4gsw_gemv_i8dot.comp",
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
  double arithmetic_tolerance(const Problem& p) const override {
    return fp32_tolerance(p) + int8_activation_tolerance(p);
  }
  std::string combination_error(const Knobs& k) const override {
    // As in q4gsw_gemv_fast: the fully unrolled body holds npl * unroll * mmax blocks x rows.
    const uint32_t body = get(k, "npl") * get(k, "unroll") * get(k, "mmax");
    if (body > 16) {
      return "npl * unroll * mmax = " + std::to_string(body) + " exceeds 16 blocks x rows";
    }
    return {};
  }
  std::string device_error(const Knobs& k, const Problem&, const vk::DeviceInfo& d) const override {
    // A subgroup shares one K slice (q4gsw_gemv_fast says why); others would be slower only.
    if (d.subgroup_size != 0 && lanes_along_n(k) % d.subgroup_size != 0) {
      return "wg/ksplit = " + std::to_string(lanes_along_n(k)) +
             " lanes along n is not a multiple of the subgroup size " +
             std::to_string(d.subgroup_size) + "; a subgroup must share one K slice";
    }
    return {};
  }
  Requirements shader_requirements(const Knobs&) const override {
    Requirements r;
    r.add(Feature::shader_integer_dot_product).add(GlslExtension::integer_dot_product);
    return r;
  }

 private:
  Layout layout_;  // packed or packed_s16
};

}  // namespace

const Family& gemv_i8dot_family(DType dtype) {
  static const GemvI8Dot f32(DType::f32, Layout::packed), f16(DType::f16, Layout::packed);
  return dtype == DType::f16 ? f16 : f32;
}

const Family& gemv_i8dot_s16_family(DType dtype) {
  static const GemvI8Dot f32(DType::f32, Layout::packed_s16), f16(DType::f16, Layout::packed_s16);
  return dtype == DType::f16 ? f16 : f32;
}

}  // namespace vktune::kernels
