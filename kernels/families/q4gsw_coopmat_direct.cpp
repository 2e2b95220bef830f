// q4gsw_coopmat_direct: fp16 tensor-core GEMM through GL_KHR_cooperative_matrix whose subgroups
// build their weight fragments in registers from global memory; only x is staged in shared
// memory (see q4gsw_coopmat_direct.comp). It relies on NVIDIA's fragment element order, so it is offered on
// NVIDIA devices only. fp16 inputs: tolerance fp16_tolerance.
#include "kernels/families/families.h"
#include "kernels/families/reference.h"
#include "kernels/families/splitk.h"

namespace vktune::kernels {
namespace {

constexpr uint32_t kSubgroupSize = 32;   // SG_SIZE in the shader
constexpr uint32_t kNvidiaVendorId = 0x10de;
// Accumulator tiles per subgroup (16x16 fp32, 8 registers a lane): each loaded row of x feeds
// FN tiles and each weight word FM, so below 2 a load feeds one multiply-add; above 8 the
// accumulators, the next k-block in flight and this one's fragments pass 200 registers.
constexpr uint32_t kMinTilesPerSubgroup = 2;
constexpr uint32_t kMaxTilesPerSubgroup = 8;

class CoopmatDirect final : public Family {
 public:
  // fm, fn: 16x16 tiles a subgroup owns along M and N; sg: subgroups a workgroup, side by side
  // along N; splitk: K slices per tile (1: none); ahead: k-blocks in flight.
  explicit CoopmatDirect(DType dtype)
      : Family("q4gsw_coopmat_direct", dtype, Op::q4gsw,
               {{"fm", ints({2, 4})},
                {"fn", ints({1, 2, 4})},
                {"wm", ints({1, 2})},
                {"wn", ints({2, 4, 8})},
                {"splitk", ints({1, 2, 4, 8})}}) {}

  Constraints constraints(const Knobs&) const override {
    return {32, 32, 1, 1, 0};  // a lane's 8 k of a 32-wide block share one scale
  }
  Layout layout(const Knobs&) const override { return Layout::packed; }
  uint32_t workgroup_size(const Knobs& k) const override {
    return knob_u32(k, "wm") * knob_u32(k, "wn") * kSubgroupSize;
  }
  uint32_t shared_bytes(const Knobs& k) const override {
    // Two stages of tm rows of x (32 halves + padding) and bn packed blocks with their scales.
    return 2 * (tm(k) * 80 + bn(k) * 20);
  }
  uint64_t workspace_bytes(const Knobs& k, const Problem& p) const override {
    const uint32_t splitk = knob_u32(k, "splitk");
    if (splitk == 1) return 0;
    return splitk::workspace_bytes(wg_tiles(k, p) * knob_u32(k, "wm") * knob_u32(k, "wn"), 16 * knob_u32(k, "fm"),
                                   16 * knob_u32(k, "fn"), splitk);
  }
  ShaderSpec source(const Knobs& k) const override {
    return {"q4gsw_coopmat_direct.comp",
            {{"FM", str(knob_u32(k, "fm"))},
             {"FN", str(knob_u32(k, "fn"))},
             {"WM", str(knob_u32(k, "wm"))},
             {"WN", str(knob_u32(k, "wn"))},
             {"SPLITK", str(knob_u32(k, "splitk"))}}};
  }
  std::array<uint32_t, 3> groups(const Knobs& k, const Problem& p,
                                 const vk::DeviceInfo& d) const override {
    return {clamp_groups(wg_tiles(k, p) * knob_u32(k, "splitk"), d), 1, 1};
  }
  double arithmetic_tolerance(const Problem& p) const override { return fp16_tolerance(p); }

 protected:
  std::string combination_error(const Knobs& k) const override {
    const uint32_t tiles = knob_u32(k, "fm") * knob_u32(k, "fn");
    if (tiles < kMinTilesPerSubgroup || tiles > kMaxTilesPerSubgroup) {
      return std::to_string(tiles) + " accumulator tiles per subgroup, outside " +
             std::to_string(kMinTilesPerSubgroup) + "-" + std::to_string(kMaxTilesPerSubgroup);
    }
    return {};
  }
  std::string device_error(const Knobs& k, const Problem& p,
                           const vk::DeviceInfo& d) const override {
    if (const uint32_t splitk = knob_u32(k, "splitk"); splitk > 1) {
      const std::string error = splitk::shape_error(wg_tiles(k, p), tm(k),
                                                    bn(k), p.k, 32, splitk);
      if (!error.empty()) return error;
    }
    if (d.vendor_id != kNvidiaVendorId) {
      return d.name + " is not an NVIDIA GPU, whose cooperative-matrix fragment order the "
                      "kernel assumes";
    }
    if (!vk::has_f16_tile(d.features.coopmat_khr_shapes)) {
      return d.name +
             " lacks the cooperative-matrix shape 16x16x16 f16*f16+f32 (VK_KHR_cooperative_matrix)";
    }
    return {};
  }
  Requirements shader_requirements(const Knobs&) const override {
    Requirements r;
    r.add(Feature::cooperative_matrix_khr).add(GlslExtension::cooperative_matrix_khr);
    r.add(Feature::shader_float16).subgroup_size = kSubgroupSize;
    return r;
  }

 private:
  static uint32_t tm(const Knobs& k) { return 16 * knob_u32(k, "fm") * knob_u32(k, "wm"); }
  static uint32_t bn(const Knobs& k) { return 16 * knob_u32(k, "fn") * knob_u32(k, "wn"); }
  static uint64_t wg_tiles(const Knobs& k, const Problem& p) {
    return ceil_div(p.m, tm(k)) * ceil_div(p.n, bn(k));
  }
};

}  // namespace

const Family& coopmat_direct_family(DType dtype) {
  static const CoopmatDirect f32(DType::f32), f16(DType::f16);
  return dtype == DType::f16 ? f16 : f32;
}

}  // namespace vktune::kernels
