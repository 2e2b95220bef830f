// q4gsw_tiled: register-tiled GEMM (TM x TN per thread), optional shared-memory staging.
// Thread geometry (16 threads along N, wg/16 along M) mirrors q4gsw_tiled.comp.
#include "kernels/families/families.h"

namespace vktune::kernels {
namespace {

constexpr uint32_t kThreadsN = 16;  // TX in the shader

class Tiled final : public Family {
 public:
  explicit Tiled(DType dtype)
      : Family("q4gsw_tiled", dtype, Op("q4gsw"),
               {{"layout", words({"raw", "packed"})},
                {"tm", ints({1, 2, 4, 8})},
                {"tn", ints({1, 2, 4, 8})},
                {"wg", ints({64, 128, 256})},
                {"bk", ints({0, 16, 32, 64})}}) {}

  static bool packed(const Knobs& k) { return knob_word(k, "layout") == "packed"; }
  static uint32_t tile_m(const Knobs& k) {
    return static_cast<uint32_t>(knob_int(k, "wg") / kThreadsN * knob_int(k, "tm"));
  }
  static uint32_t tile_n(const Knobs& k) {
    return static_cast<uint32_t>(kThreadsN * knob_int(k, "tn"));
  }

  Constraints constraints(const Knobs& k) const override {
    // Unstaged packed reads whole 32-nibble blocks, each under one scale; everything else
    // reads 8-nibble words (staging zero-fills a partial last k-tile).
    const bool blocks = packed(k) && knob_int(k, "bk") == 0;
    const uint32_t step = blocks ? 32 : 8;
    return {step, step, 1, 1, 0};
  }
  Layout layout(const Knobs& k) const override {
    return packed(k) ? Layout::packed : Layout::raw;
  }
  uint32_t workgroup_size(const Knobs& k) const override {
    return knob_u32(k, "wg");
  }
  uint32_t shared_bytes(const Knobs& k) const override {
    const uint32_t bk = knob_u32(k, "bk");
    return (tile_m(k) + tile_n(k)) * bk * 4;
  }
  // The layout and whether x is staged choose code paths; the sizes are specialised.
  ShaderSpec source(const Knobs& k) const override {
    const uint32_t bk = knob_u32(k, "bk");
    ShaderSpec spec{"q4gsw_tiled.comp",
                    {{"STAGED", bk > 0 ? "1" : "0"}, {"PACKED", packed(k) ? "1" : "0"}},
                    {{0, knob_u32(k, "wg")}, {1, knob_u32(k, "tm")}, {2, knob_u32(k, "tn")}}};
    if (bk > 0) spec.specialization.push_back({3, bk});
    return spec;
  }
  std::array<uint32_t, 3> groups(const Knobs& k, const Problem& p,
                                 const vk::DeviceInfo& d) const override {
    return {clamp_groups(output_tile(k).count(p.m, p.n), d), 1, 1};
  }
  // Edge tiles clamp their rows and columns to the last real one and compute every slot.
  OutputTile output_tile(const Knobs& k) const override { return {tile_m(k), tile_n(k)}; }
};

}  // namespace

VKTUNE_CATALOGUE_FAMILIES(q4gsw_tiled) {
  static const Tiled f32(DType::f32), f16(DType::f16);
  return {&f32, &f16};
}

}  // namespace vktune::kernels
