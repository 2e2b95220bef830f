// q4gsw_gemv_i8dot: decode GEMV (M <= 8) on the packed layout with x quantised to int8 per
// 32-element block and integer dot products (see q4gsw_gemv_i8dot.comp); q4gsw_gemv_i8dot_s16:
// the same kernel on the packed_s16 layout (fp16 scales interleaved). Both need
// GL_EXT_integer_dot_product, which only the newer compiler accepts (their modules ship prebuilt:
// kernels/vk/prebuilt_spirv.h), and a device with shaderIntegerDotProduct; their tolerance adds
// x's rounding to int8.
// q4gsw_gemv_i8dot_splitk[_s16]: both with K also split across workgroups (knob slices).
#include <algorithm>

#include "kernels/families/families.h"
#include "kernels/families/gemv_lanes.h"
#include "kernels/families/reference.h"
#include "kernels/families/splitk.h"

namespace vktune::kernels {
namespace {

std::string family_base_name(Layout layout, bool split) {
  return std::string("q4gsw_gemv_i8dot") + (split ? "_splitk" : "") +
         (layout == Layout::packed_s16 ? "_s16" : "");
}

std::vector<KnobSpec> knob_list(bool split) {
  std::vector<KnobSpec> knobs{{"wg", ints({64, 128, 256, 512, 1024})},
                              {"ksplit", ints({1, 2, 4, 8, 16, 32})},
                              {"npl", ints({1, 2})},
                              {"unroll", ints({1, 2, 4})},
                              {"mmax", ints({1, 2, 4, 8})}};
  if (split) knobs.push_back({"slices", ints({2, 4, 8, 16})});
  return knobs;
}

class GemvI8Dot final : public Family {
 public:
  // The knobs of q4gsw_gemv_fast, npl with fewer values: wg: invocations; ksplit: K slices
  // per workgroup; npl: outputs per lane; unroll: 16-byte blocks per output loaded before any
  // arithmetic (bytes in flight); mmax: rows of x compiled in (serves M in (mmax/2, mmax]).
  // wg up to 1024 and ksplit up to 32 for the reason gemv_fast has them: at N = 4096 a
  // subgroup-wide tile makes 128 workgroups, one an SM on the H100, and only more warps per
  // workgroup put more loads in flight. slices (split families): K slices across workgroups,
  // so a tile wide enough to cut x's per-workgroup traffic still leaves no SM idle.
  GemvI8Dot(DType dtype, Layout layout, bool split)
      : Family(family_base_name(layout, split), dtype, Op("q4gsw"), knob_list(split)),
        layout_(layout),
        split_(split) {}

  // Blocks of each row quantised per chunk, as CB in the shader.
  static uint32_t chunk_blocks(const Knobs& k) {
    return std::max(knob_u32(k, "wg") / knob_u32(k, "mmax"),
                    knob_u32(k, "ksplit") * knob_u32(k, "unroll"));
  }

  uint32_t slices(const Knobs& k) const { return split_ ? knob_u32(k, "slices") : 1; }
  static uint64_t tiles(const Knobs& k, const Problem& p) {
    return OutputTile{0, gemv_lanes::tile_outputs(k)}.count(p.m, p.n);
  }

  // Split: at least splitk::kMinStepsPerSlice k-steps (one trip of the shader's block loop,
  // ksplit * unroll blocks of 32) a slice, and N's tiles leaving the GPU room. Rules of speed, not
  // of correctness (a slice past K hands over zeros), kept as constraints so that the runtime's
  // ranking never offers such a split for an untuned K or N.
  Constraints constraints(const Knobs& k) const override {
    Constraints c = gemv_lanes::constraints(k);
    if (split_) {
      c.k_min = splitk::kMinStepsPerSlice * slices(k) * k_step(k);
      c.split = split_tile(k);
    }
    return c;
  }
  static uint32_t k_step(const Knobs& k) { return 32 * knob_u32(k, "ksplit") * knob_u32(k, "unroll"); }
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
    // Split: the last slice's flag.
    return knob_u32(k, "mmax") * chunk_blocks(k) * (32 + 4) + gemv_lanes::handover_bytes(k) +
           (split_ ? 4 : 0);
  }
  uint64_t workspace_bytes(const Knobs& k, const Problem& p) const override {
    if (!split_) return 0;
    return splitk::workspace_bytes(tiles(k, p), knob_u32(k, "mmax"), gemv_lanes::tile_outputs(k),
                                   slices(k));
  }
  ShaderSpec source(const Knobs& k) const override {
    ShaderSpec spec = gemv_lanes::spec("q4gsw_gemv_i8dot.comp", k, layout_);
    if (split_) {
      spec.defines.emplace_back("SLICED", "1");
      spec.specialization.push_back({5, slices(k)});  // after gemv_lanes' ids 0-4
    }
    return spec;
  }
  std::array<uint32_t, 3> groups(const Knobs& k, const Problem& p,
                                 const vk::DeviceInfo& d) const override {
    return {clamp_groups(tiles(k, p) * slices(k), d), 1, 1};
  }
  OutputTile split_tile(const Knobs& k) const override {
    if (!split_) return {};
    return {0, gemv_lanes::tile_outputs(k), slices(k)};  // every row of M in one tile
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
  bool split_;     // K split across workgroups as well
};

// The f32 or f16 instance of one layout and split: each combination's own pair of statics.
template <Layout layout, bool split>
const Family& instance(DType dtype) {
  static const GemvI8Dot f32(DType::f32, layout, split), f16(DType::f16, layout, split);
  return dtype == DType::f16 ? f16 : f32;
}

}  // namespace

VKTUNE_CATALOGUE_FAMILIES(q4gsw_gemv_i8dot) {
  std::vector<const Family*> all;
  for (DType dtype : {DType::f32, DType::f16}) {
    all.insert(all.end(), {&instance<Layout::packed, false>(dtype),
                           &instance<Layout::packed_s16, false>(dtype),
                           &instance<Layout::packed, true>(dtype),
                           &instance<Layout::packed_s16, true>(dtype)});
  }
  return all;
}

}  // namespace vktune::kernels
