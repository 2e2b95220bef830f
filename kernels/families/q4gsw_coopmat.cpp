// q4gsw_coopmat: fp16 tensor-core GEMM through GL_NV_cooperative_matrix (16x16x16, fp32
// accumulators); see q4gsw_coopmat.comp. fp16 inputs: tolerance fp16_tolerance.
#include <algorithm>

#include "kernels/families/families.h"
#include "kernels/families/reference.h"

namespace vktune::kernels {
namespace {

constexpr uint32_t kSubgroupSize = 32;  // SG_SIZE in the shader
// Accumulator tiles (16x16 fp32, 8 registers a lane) per subgroup: below 4 a fragment read
// from shared memory feeds too few multiply-adds; above 16 the registers spill.
constexpr uint32_t kMinTilesPerSubgroup = 4;
constexpr uint32_t kMaxTilesPerSubgroup = 16;

class Coopmat final : public Family {
 public:
  Coopmat()
      : Family("q4gsw_coopmat", Op::q4gsw,
               {{"bm", ints({32, 64, 128})},
                {"bn", ints({32, 64, 128, 256})},
                {"bk", ints({32, 64})},
                {"sg", ints({4, 8})},
                {"buf", ints({1, 2})}}) {}

  // Tile geometry, as the shader's defines: wn subgroups along N, wm along M, each owning
  // fm x fn 16x16 tiles; wn = 0 when the tile does not split for sg subgroups.
  struct Geometry {
    uint32_t bm, bn, bk, sg, buf, wn = 0, wm = 0, fm = 0, fn = 0;
  };
  static Geometry geometry(const Knobs& k) {
    Geometry g{static_cast<uint32_t>(knob_int(k, "bm")), static_cast<uint32_t>(knob_int(k, "bn")),
               static_cast<uint32_t>(knob_int(k, "bk")), static_cast<uint32_t>(knob_int(k, "sg")),
               static_cast<uint32_t>(knob_int(k, "buf"))};
    // The squarest subgroup tile (fewest fragment loads per multiply-add); ties go to fewer
    // subgroups along N.
    for (uint32_t wn = 1; wn <= g.sg; wn *= 2) {
      const uint32_t wm = g.sg / wn;
      if ((g.bn / 16) % wn != 0 || (g.bm / 16) % wm != 0) continue;
      const uint32_t fm = g.bm / 16 / wm, fn = g.bn / 16 / wn;
      if (g.wn == 0 || fm + fn < g.fm + g.fn) {
        g.wn = wn;
        g.wm = wm;
        g.fm = fm;
        g.fn = fn;
      }
    }
    return g;
  }

  Constraints constraints(const Knobs&) const override {
    return {32, 32, 1, 1, 0};  // one uvec4 of 32 nibbles shares one scale
  }
  Layout layout(const Knobs&) const override { return Layout::raw; }
  uint32_t workgroup_size(const Knobs& k) const override { return geometry(k).sg * kSubgroupSize; }
  uint32_t shared_bytes(const Knobs& k) const override {
    // As SMEM4 in the shader: the fp16 staging rows (bk halves + 16 bytes of padding) for the
    // x and weight tiles, or the per-subgroup 16x16 fp32 scratch that aliases them.
    const Geometry g = geometry(k);
    return std::max((g.bm + g.bn) * (g.bk + 8) * 2, g.sg * 256 * 4);
  }
  ShaderSpec shader(const Knobs& k) const override {
    const Geometry g = geometry(k);
    return {"q4gsw_coopmat.comp",
            {{"BM", str(g.bm)},
             {"BN", str(g.bn)},
             {"BK", str(g.bk)},
             {"SG", str(g.sg)},
             {"WN", str(g.wn)},
             {"BUF", str(g.buf)}}};
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
    const std::string tile = std::to_string(g.bm) + "x" + std::to_string(g.bn);
    if (g.wn == 0) {
      return "a " + tile + " tile does not split into whole 16x16 tiles for " +
             std::to_string(g.sg) + " subgroups";
    }
    const uint32_t per_sg = g.fm * g.fn;
    if (per_sg < kMinTilesPerSubgroup) {
      return "a " + tile + " tile gives " + std::to_string(g.sg) + " subgroups " +
             std::to_string(per_sg) + " accumulator tiles each, below " +
             std::to_string(kMinTilesPerSubgroup) + " (too little fragment reuse)";
    }
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
