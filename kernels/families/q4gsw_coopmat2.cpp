// q4gsw_coopmat2: the tensor-core GEMM through GL_NV_cooperative_matrix2 (workgroup-scope
// matrices, tensor-layout loads, the int4 weights dequantised by a decode function), optionally
// splitting K across workgroups; see q4gsw_coopmat2.comp. Only the newer shader compiler builds it
// (its modules ship prebuilt: kernels/vk/prebuilt_spirv.h); needs a Vulkan 1.3 device with the
// extension; fp16 operands: tolerance fp16_tolerance.

#include "kernels/families/families.h"
#include "kernels/families/reference.h"
#include "kernels/families/splitk.h"

namespace vktune::kernels {
namespace {

// fp32 accumulator elements per invocation (bm * bn / wg): above the maximum the registers
// spill, below the minimum a tile is too small to keep the tensor cores fed between loads.
constexpr uint32_t kMaxAccumulatorsPerInvocation = 128;
constexpr uint32_t kMinAccumulatorsPerInvocation = 16;

class Coopmat2 final : public Family {
 public:
  // wg: invocations (the driver spreads the matrices over them); bm: rows of x and out per
  // tile; bn: weight rows (columns of out) per tile; bk: k per step (one matrix load of each
  // operand); splitk: K slices per output tile (1: no split). The values are what came within
  // 10% of the best on the H100's prefill problems out of a space four times larger (wg 128,
  // bm 32, bn 256, splitk 8 and fp16 x loaded without the decode never did).
  explicit Coopmat2(DType dtype)
      : Family("q4gsw_coopmat2", dtype, Op("q4gsw"),
               {{"wg", ints({256})},
                {"bm", ints({64, 128, 256})},
                {"bn", ints({32, 64, 128})},
                {"bk", ints({32, 64})},
                {"splitk", ints({1, 2, 4})}}) {}

  Constraints constraints(const Knobs& k) const override {
    Constraints c{32, 32, 1, 1, 0};  // a decoded block is one row's 32 nibbles, under one scale
    c.gs_power_of_two = true;        // the decode finds a block's scale by a shift
    if (const uint32_t slices = knob_u32(k, "splitk"); slices > 1) {
      c.k_min = splitk::min_k(slices, knob_u32(k, "bk"));
      c.split = tile(k);
    }
    return c;
  }
  Layout layout(const Knobs&) const override { return Layout::raw; }
  uint32_t workgroup_size(const Knobs& k) const override { return knob_u32(k, "wg"); }
  // The driver stages the operands in shared memory of its own; the shader declares only the
  // split-K hand-over flag.
  uint32_t shared_bytes(const Knobs& k) const override { return knob_u32(k, "splitk") > 1 ? 4 : 0; }
  uint64_t workspace_bytes(const Knobs& k, const Problem& p) const override {
    if (knob_u32(k, "splitk") == 1) return 0;
    return splitk::workspace_bytes(output_tiles(k, p), knob_u32(k, "bm"), knob_u32(k, "bn"),
                                   knob_u32(k, "splitk"));
  }
  ShaderSpec source(const Knobs& k) const override {
    // The sizes in the shader's constant_id order; SPLIT for the split's hand-over code.
    return {"q4gsw_coopmat2.comp",
            {{"SPLIT", knob_u32(k, "splitk") > 1 ? "1" : "0"}},
            {{0, knob_u32(k, "wg")},
             {1, knob_u32(k, "bm")},
             {2, knob_u32(k, "bn")},
             {3, knob_u32(k, "bk")},
             {4, knob_u32(k, "splitk")}}};
  }
  std::array<uint32_t, 3> groups(const Knobs& k, const Problem& p,
                                 const vk::DeviceInfo& d) const override {
    return {clamp_groups(tile(k).workgroups(p.m, p.n), d), 1, 1};
  }
  // Edge tiles load zeros past the tensors and multiply the whole tile.
  OutputTile output_tile(const Knobs& k) const override { return tile(k); }
  double arithmetic_tolerance(const Problem& p) const override { return fp16_tolerance(p); }

 protected:
  std::string combination_error(const Knobs& k) const override {
    const uint32_t per = knob_u32(k, "bm") * knob_u32(k, "bn") / knob_u32(k, "wg");
    const std::string tile = str(knob_u32(k, "bm")) + "x" + str(knob_u32(k, "bn"));
    if (per > kMaxAccumulatorsPerInvocation) {
      return "a " + tile + " tile gives " + str(knob_u32(k, "wg")) + " invocations " + str(per) +
             " accumulators each, above " + str(kMaxAccumulatorsPerInvocation) +
             " (register pressure)";
    }
    if (per < kMinAccumulatorsPerInvocation) {
      return "a " + tile + " tile gives " + str(knob_u32(k, "wg")) + " invocations " + str(per) +
             " accumulators each, below " + str(kMinAccumulatorsPerInvocation) +
             " (too little work a step)";
    }
    return {};
  }
  Requirements shader_requirements(const Knobs&) const override {
    Requirements r;
    r.add(Feature::cooperative_matrix2_nv)
        .add(Feature::shader_float16)
        .add(GlslExtension::cooperative_matrix2_nv);
    return r;
  }

 private:
  static uint64_t output_tiles(const Knobs& k, const Problem& p) {
    return tile(k).count(p.m, p.n);
  }
  static OutputTile tile(const Knobs& k) {
    return {knob_u32(k, "bm"), knob_u32(k, "bn"), knob_u32(k, "splitk")};
  }
};

}  // namespace

VKTUNE_CATALOGUE_FAMILIES(q4gsw_coopmat2) {
  static const Coopmat2 f32(DType::f32), f16(DType::f16);
  return {&f32, &f16};
}

}  // namespace vktune::kernels
