// q4gsw_gemv_i8dot: decode GEMV (M <= 8) on the packed layout with x quantised to int8 per
// 32-element block and integer dot products (see q4gsw_gemv_i8dot.comp); q4gsw_gemv_i8dot_s16:
// the same kernel on the packed_s16 layout (fp16 scales interleaved). Both need a compiler that
// accepts GL_EXT_integer_dot_product (not Debian 12's shaderc: tools/setup-newer-shaderc.sh)
// and a device with shaderIntegerDotProduct; their tolerance adds x's rounding to int8.
#include <algorithm>

#include "kernels/families/families.h"
#include "kernels/families/gemv_lanes.h"
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

  // Blocks of each row quantised per chunk, as CB in the shader.
  static uint32_t chunk_blocks(const Knobs& k) {
    return std::max(knob_u32(k, "wg") / knob_u32(k, "mmax"),
                    knob_u32(k, "ksplit") * knob_u32(k, "unroll"));
  }

  Constraints constraints(const Knobs& k) const override { return gemv_lanes::constraints(k); }
  Layout layout(const Knobs&) const override { return layout_; }
  uint32_t workgroup_size(const Knobs& k) const override { return knob_u32(k, "wg"); }
  // The gate's term for the int8 rounding of make_random's x replaced by the same term for
  // these inputs.
  std::vector<double> tolerance_on(const Problem& p, std::span<const double> x,
                                   const ProblemData& data, const Reference& ref) const override {
    std::vector<double> tol = int8_rounding_tolerance(p, x, data, ref);
    for (double& t : tol) t += tolerance(p) - int8_activation_tolerance(p);
    return tol;
  }
  uint32_t shared_bytes(const Knobs& k) const override {
    // Per row and block of a chunk: 32 int8 and a float scale; then the slices' hand-over.
    return knob_u32(k, "mmax") * chunk_blocks(k) * (32 + 4) + gemv_lanes::handover_bytes(k);
  }
  ShaderSpec source(const Knobs& k) const override {
    return gemv_lanes::spec("q4gsw_gemv_i8dot.comp", k, layout_);
  }
  std::array<uint32_t, 3> groups(const Knobs& k, const Problem& p,
                                 const vk::DeviceInfo& d) const override {
    return gemv_lanes::groups(k, p, d);
  }

 protected:
  double arithmetic_tolerance(const Problem& p) const override {
    return fp32_tolerance(p) + int8_activation_tolerance(p);
  }
  std::string combination_error(const Knobs& k) const override { return gemv_lanes::body_error(k); }
  std::string device_error(const Knobs& k, const Problem&, const vk::DeviceInfo& d) const override {
    return gemv_lanes::subgroup_error(k, d);
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
