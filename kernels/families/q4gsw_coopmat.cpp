// q4gsw_coopmat: fp16 tensor-core GEMM through GL_NV_cooperative_matrix (16x16x16, fp32
// accumulators); see q4gsw_coopmat.comp. fp16 inputs: tolerance fp16_tolerance.
#include "kernels/families/families.h"
#include "kernels/families/reference.h"

namespace vktune::kernels {
namespace {

constexpr uint32_t kSubgroupSize = 32;  // SG_SIZE in the shader
constexpr uint32_t kMaxTilesPerSubgroup = 16;

class Coopmat final : public Family {
 public:
  Coopmat()
      : Family("q4gsw_coopmat", Op::q4gsw,
               {{"bm", ints({32, 64, 128})},
                {"bn", ints({32, 64, 128})},
                {"bk", ints({16, 32, 64})},
                {"sg", ints({4, 8})}}) {}

  struct Geometry {
    uint32_t bm, bn, bk, sg, wn, wm;
  };
  static Geometry geometry(const Knobs& k) {
    Geometry g{static_cast<uint32_t>(knob_int(k, "bm")), static_cast<uint32_t>(knob_int(k, "bn")),
               static_cast<uint32_t>(knob_int(k, "bk")), static_cast<uint32_t>(knob_int(k, "sg")),
               0, 0};
    g.wn = std::min(g.sg, g.bn / 16);  // as WN / WM in the shader
    g.wm = g.sg / g.wn;
    return g;
  }

  Constraints constraints(const Knobs&) const override { return {8, 8, 1, 1, 0}; }
  Layout layout(const Knobs&) const override { return Layout::raw; }
  uint32_t workgroup_size(const Knobs& k) const override {
    return geometry(k).sg * kSubgroupSize;
  }
  uint32_t shared_bytes(const Knobs& k) const override {
    const Geometry g = geometry(k);
    return (g.bm * (g.bk + 8) + g.bk * (g.bn + 8)) * 2 + g.sg * 256 * 4;
  }
  ShaderSpec shader(const Knobs& k) const override {
    return {"q4gsw_coopmat.comp",
            {{"BM", str(knob_int(k, "bm"))},
             {"BN", str(knob_int(k, "bn"))},
             {"BK", str(knob_int(k, "bk"))},
             {"SG", str(knob_int(k, "sg"))}}};
  }
  std::array<uint32_t, 3> groups(const Knobs& k, const Problem& p,
                                 const vk::DeviceInfo& d) const override {
    const Geometry g = geometry(k);
    return {clamp_groups(ceil_div(p.m, g.bm) * ceil_div(p.n, g.bn), d), 1, 1};
  }
  double tolerance(const Problem& p) const override { return fp16_tolerance(p); }

 protected:
  std::string combination_error(const Knobs& k) const override {
    const Geometry g = geometry(k);
    if (g.wm * g.wn != g.sg || (g.bm / 16) % g.wm != 0) {
      return "a " + std::to_string(g.bm) + "x" + std::to_string(g.bn) +
             " tile does not split into whole 16x16 tiles for " + std::to_string(g.sg) +
             " subgroups";
    }
    const uint32_t per_sg = (g.bm / 16 / g.wm) * (g.bn / 16 / g.wn);
    if (per_sg > kMaxTilesPerSubgroup) {
      return std::to_string(per_sg) + " accumulator tiles per subgroup exceed " +
             std::to_string(kMaxTilesPerSubgroup) + " (register pressure)";
    }
    return {};
  }
  std::string device_error(const Knobs&, const Problem&, const vk::DeviceInfo& d) const override {
    if (!d.features.coopmat_nv) {
      return d.name + " has no VK_NV_cooperative_matrix";
    }
    if (!d.features.shader_float16) return d.name + " has no shaderFloat16 (fp16 arithmetic)";
    bool shape = false;
    for (const vk::CoopMatShape& s : d.features.coopmat_shapes) {
      shape = shape || (s.m == 16 && s.n == 16 && s.k == 16 && s.a_type == "f16" &&
                        s.b_type == "f16" && s.c_type == "f32" && s.result_type == "f32");
    }
    if (!shape) return d.name + " lacks the cooperative-matrix shape 16x16x16 f16*f16+f32";
    if (d.subgroup_size != kSubgroupSize) {
      return "q4gsw_coopmat needs subgroup size 32; " + d.name + " has " +
             std::to_string(d.subgroup_size);
    }
    return {};
  }
};

}  // namespace

const Family& coopmat_family() {
  static const Coopmat family;
  return family;
}

}  // namespace vktune::kernels
