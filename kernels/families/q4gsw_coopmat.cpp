// q4gsw_coopmat and q4gsw_coopmat_splitk: fp16 tensor-core GEMM through
// GL_NV_cooperative_matrix (16x16x16, fp32 accumulators), the second also splitting K across
// workgroups; see q4gsw_coopmat.comp. q4gsw_coopmat_khr and q4gsw_coopmat_splitk_khr: the same
// kernels through GL_KHR_cooperative_matrix (the newer compiler; the API AMD and Intel GPUs
// expose). q4gsw_coopmat_khr_packed and q4gsw_coopmat_splitk_khr_packed: the KHR kernels on the
// packed weight layout, with a weight prefetch knob. q4gsw_coopmat_ws and q4gsw_coopmat_ws_splitk:
// the packed KHR kernels with staging-only subgroups (warp-specialised). fp16 inputs: tolerance
// fp16_tolerance.
#include <algorithm>

#include "kernels/families/families.h"
#include "kernels/families/reference.h"
#include "kernels/families/splitk.h"

namespace vktune::kernels {
namespace {

constexpr uint32_t kSubgroupSize = 32;  // SG_SIZE in the shader
// Accumulator tiles (16x16 fp32, 8 registers a lane) per subgroup: below 4 a fragment read
// from shared memory feeds too few multiply-adds; above 16 the registers spill.
constexpr uint32_t kMinTilesPerSubgroup = 4;
constexpr uint32_t kMaxTilesPerSubgroup = 16;

std::vector<KnobSpec> coopmat_knobs(bool split) {
  // bn up to 512: x arrives as fp32 and is the bulk of each k-step's L2 traffic, so x bytes
  // per multiply-add fall as 1/bn (weights, 4-bit, as 1/bm). sg 16: 512 invocations leave the
  // compiler at most 128 registers a thread (the SM has 64 Ki), so an SM holds 16 warps of one
  // workgroup instead of 8 at ~200 registers; more warps to cover the barriers and loads.
  std::vector<KnobSpec> knobs = {{"bm", ints({32, 64, 128})},
                                 {"bn", ints({32, 64, 128, 256, 512})},
                                 {"bk", ints({32, 64})},
                                 {"sg", ints({4, 8, 16})},
                                 {"buf", ints({1, 2, 3, 4})}};
  if (split) knobs.push_back({"splitk", ints({2, 4, 8})});
  return knobs;
}

// The packed families' knobs: those whose values came within 10% of each problem's best on the
// H100 (bm 32, bn 32 and 512, buf 1 and 3 never did), and wpf: the weights fetched 4 k-steps
// ahead in a ring of their own (0: with x).
std::vector<KnobSpec> packed_knobs(bool split) {
  std::vector<KnobSpec> knobs = {{"bm", ints({64, 128})},
                                 {"bn", ints({64, 128, 256})},
                                 {"bk", ints({32, 64})},
                                 {"sg", ints({4, 8, 16})},
                                 {"buf", ints({2, 4})}};
  if (split) knobs.push_back({"splitk", ints({2, 4, 8})});
  knobs.push_back({"wpf", ints({0, 4})});
  return knobs;
}

// The warp-specialised families' knobs: sg subgroups multiply (the tile grid as above), pw more
// only stage, into two shared stages (so bm + bn stays within 48 KiB at bk = 32).
std::vector<KnobSpec> ws_knobs(bool split) {
  std::vector<KnobSpec> knobs = {{"bm", ints({64, 128})},
                                 {"bn", ints({64, 128, 256})},
                                 {"bk", ints({32, 64})},
                                 {"sg", ints({4, 8})},
                                 {"pw", ints({2, 4, 8})}};
  if (split) knobs.push_back({"splitk", ints({2, 4, 8})});
  return knobs;
}

// Which tiles a family offers: through GL_NV_cooperative_matrix; through
// GL_KHR_cooperative_matrix; those on the packed weight layout, with the wpf knob; those with
// pw staging-only subgroups as well (warp-specialised).
enum class Tiles { nv, khr, khr_packed, ws };

std::string base_name(bool split, Tiles tiles) {
  if (tiles == Tiles::ws) return split ? "q4gsw_coopmat_ws_splitk" : "q4gsw_coopmat_ws";
  return std::string(split ? "q4gsw_coopmat_splitk" : "q4gsw_coopmat") +
         (tiles == Tiles::khr ? "_khr" : tiles == Tiles::khr_packed ? "_khr_packed" : "");
}

std::vector<KnobSpec> tile_knobs(bool split, Tiles tiles) {
  switch (tiles) {
    case Tiles::ws: return ws_knobs(split);
    case Tiles::khr_packed: return packed_knobs(split);
    default: return coopmat_knobs(split);
  }
}

class Coopmat final : public Family {
 public:
  // buf: 1 load, then store; 2 prefetch the next k-step into registers; 3 that, and two
  // shared stages; 4 prefetch two k-steps ahead. splitk (split family only): K slices per
  // output tile.
  Coopmat(bool split, DType dtype, Tiles tiles)
      : Family(base_name(split, tiles), dtype, Op("q4gsw"), tile_knobs(split, tiles)),
        split_(split),
        tiles_(tiles) {}
  bool khr() const { return tiles_ != Tiles::nv; }
  bool packed() const { return tiles_ == Tiles::khr_packed || ws(); }
  bool ws() const { return tiles_ == Tiles::ws; }
  uint32_t wpf(const Knobs& k) const {
    return tiles_ == Tiles::khr_packed ? knob_u32(k, "wpf") : 0;
  }

  // Tile geometry, as the shader's constants: wn subgroups along N, wm along M, each owning
  // fm x fn 16x16 tiles; wn = 0 when the tile does not split for sg subgroups.
  // pw: the staging-only subgroups (ws), beside the sg of the grid; buf is unused there.
  struct Geometry {
    uint32_t bm, bn, bk, sg, buf, splitk, pw, wn = 0, wm = 0, fm = 0, fn = 0;
  };
  Geometry geometry(const Knobs& k) const {
    Geometry g{knob_u32(k, "bm"),
               knob_u32(k, "bn"),
               knob_u32(k, "bk"),
               knob_u32(k, "sg"),
               ws() ? 2u : knob_u32(k, "buf"),
               split_ ? knob_u32(k, "splitk") : 1u,
               ws() ? knob_u32(k, "pw") : 0u};
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

  Constraints constraints(const Knobs& k) const override {
    Constraints c{32, 32, 1, 1, 0};  // one uvec4 of 32 nibbles shares one scale
    // Split: splitk::kMinStepsPerSlice k-steps a slice (or the split is all prologue and
    // hand-over), and tiles that leave the GPU room; constraints, so that the runtime's ranking
    // never offers it for an untuned K or M x N.
    if (split_) {
      const Geometry g = geometry(k);
      c.k_min = splitk::min_k(g.splitk, g.bk);
      c.split = output_tile(k);
    }
    return c;
  }
  Layout layout(const Knobs&) const override { return packed() ? Layout::packed : Layout::raw; }
  uint32_t workgroup_size(const Knobs& k) const override {
    const Geometry g = geometry(k);
    return (g.sg + g.pw) * kSubgroupSize;
  }
  uint32_t shared_bytes(const Knobs& k) const override {
    // As SMEM4 in the shader: the fp16 staging rows (bk halves + 16 bytes of padding) for the
    // x and weight tiles, or the per-subgroup 16x16 fp32 scratch that aliases them.
    const Geometry g = geometry(k);
    const uint32_t stages = g.buf == 3 || g.pw > 0 ? 2 : 1;
    return std::max(stages * (g.bm + g.bn) * (g.bk + 8) * 2, g.sg * 256 * 4) + (split_ ? 4 : 0);
  }
  uint64_t workspace_bytes(const Knobs& k, const Problem& p) const override {
    if (!split_) return 0;
    const Geometry g = geometry(k);
    return splitk::workspace_bytes(output_tiles(g, p), g.bm, g.bn, g.splitk);
  }
  // The sizes as specialisation constants, in the shader's constant_id order; the knobs that
  // change its code as defines.
  ShaderSpec source(const Knobs& k) const override {
    const Geometry g = geometry(k);
    ShaderSpec spec{"q4gsw_coopmat.comp",
                    {{"BUF", str(g.buf)}},
                    {{0, workgroup_size(k)},
                     {1, g.bm},
                     {2, g.bn},
                     {3, g.bk},
                     {4, g.sg},
                     {5, g.wn},
                     {6, g.splitk}}};
    if (khr()) spec.defines.emplace_back("KHR", "1");  // coopmat_api.glsl
    if (packed()) spec.defines.emplace_back("PACKED", "1");
    if (wpf(k) != 0) spec.defines.emplace_back("WAHEAD", str(wpf(k)));
    if (g.pw != 0) spec.defines.emplace_back("WS", "1");
    if (split_) spec.defines.emplace_back("SPLIT", "1");
    return spec;
  }
  std::array<uint32_t, 3> groups(const Knobs& k, const Problem& p,
                                 const vk::DeviceInfo& d) const override {
    return {clamp_groups(output_tile(k).workgroups(p.m, p.n), d), 1, 1};
  }
  // Every subgroup multiplies whole 16x16 fragments, zero-filled past the edges.
  OutputTile output_tile(const Knobs& k) const override {
    const Geometry g = geometry(k);
    return {g.bm, g.bn, g.splitk};
  }
  double arithmetic_tolerance(const Problem& p) const override { return fp16_tolerance(p); }

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
    return f16_tile_error(d, khr());
  }
  Requirements shader_requirements(const Knobs&) const override {
    Requirements r;
    if (khr()) {
      r.add(Feature::cooperative_matrix_khr).add(GlslExtension::cooperative_matrix_khr);
    } else {
      r.add(Feature::cooperative_matrix_nv);
    }
    r.add(Feature::shader_float16).subgroup_size = kSubgroupSize;
    return r;
  }

 private:
  static uint64_t output_tiles(const Geometry& g, const Problem& p) {
    return OutputTile{g.bm, g.bn}.count(p.m, p.n);
  }

  bool split_;
  Tiles tiles_;
};

// One descriptor per (split, tiles, dtype), built on first use.
template <bool Split, Tiles T>
const Family& instance(DType dtype) {
  static const Coopmat f32(Split, DType::f32, T), f16(Split, DType::f16, T);
  return dtype == DType::f16 ? f16 : f32;
}

}  // namespace

VKTUNE_CATALOGUE_FAMILIES(q4gsw_coopmat) {
  std::vector<const Family*> all;
  for (DType dtype : {DType::f32, DType::f16}) {
    all.insert(all.end(), {&instance<false, Tiles::nv>(dtype), &instance<true, Tiles::nv>(dtype),
                           &instance<false, Tiles::khr>(dtype), &instance<true, Tiles::khr>(dtype),
                           &instance<false, Tiles::khr_packed>(dtype),
                           &instance<true, Tiles::khr_packed>(dtype),
                           &instance<false, Tiles::ws>(dtype), &instance<true, Tiles::ws>(dtype)});
  }
  return all;
}

}  // namespace vktune::kernels
