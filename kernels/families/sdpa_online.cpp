// sdpa_fused and sdpa_split: the single-pass online-softmax kernel (sdpa_online.comp), one
// workgroup per (token, group of `qpg` query heads sharing a KV head), or per (token, head
// group, slice of the context) merged by the last slice to finish (split context: decode has
// too few rows to fill a GPU otherwise).
#include "kernels/families/families.h"

namespace vktune::kernels {
namespace {

// The shader's DMAX: q is staged in shared memory and the accumulator kept in registers.
constexpr uint32_t kMaxHeadDim = 256;
// Floats an invocation keeps live across a step: qpg heads' accumulators and step scores. Past
// this the compiler spills or occupancy collapses, and a wider head group cannot win back the
// K/V reads it saves.
constexpr uint32_t kMaxLiveFloats = 64;

std::vector<KnobSpec> online_knobs(bool split) {
  // vec: 4 reads q, K and V as vec4 (D % 4 == 0); keys: positions per invocation per step;
  // qpg: query heads per workgroup, consecutive heads of one KV head's group (GQA), which then
  // read each K and V element once instead of once per head.
  std::vector<KnobSpec> knobs = {
      {"vec", ints({1, 4})}, {"keys", ints({1, 2, 4})}, {"wg", ints({32, 64, 128})}};
  if (split) knobs.push_back({"slices", ints({2, 4, 8, 16, 32})});
  knobs.push_back({"qpg", ints({1, 2, 4, 8})});
  return knobs;
}

class SdpaOnline final : public Family {
 public:
  SdpaOnline(bool split, DType dtype)
      : Family(split ? "sdpa_split" : "sdpa_fused", dtype, Op("sdpa"), online_knobs(split)),
        split_(split) {}

  Constraints constraints(const Knobs& k) const override {
    Constraints c;
    c.k_multiple = knob_u32(k, "vec");
    c.k_max = kMaxHeadDim;
    c.head_group_multiple = knob_u32(k, "qpg");
    return c;
  }
  Layout layout(const Knobs&) const override { return Layout::none; }
  uint32_t workgroup_size(const Knobs& k) const override { return knob_u32(k, "wg"); }
  uint32_t shared_bytes(const Knobs& k) const override {
    // As the shader: qs [qpg, DMAX], ps [qpg, wg * keys], the reduction [qpg, wg], the split's
    // last_slice; all fp32 (q is staged converted) whatever the dtype.
    const uint32_t qpg = knob_u32(k, "qpg"), wg = knob_u32(k, "wg");
    return (qpg * (kMaxHeadDim + wg * knob_u32(k, "keys") + wg) + (split_ ? 1 : 0)) * 4;
  }
  uint64_t workspace_bytes(const Knobs& k, const Problem& p) const override {
    if (!split_) return 0;
    // As the shader: a counter per head group (the workgroups of a group arrive together),
    // (m, l) per (row, slice), each part rounded up to 4 words, then acc [rows, slices, D].
    const uint64_t rows = uint64_t{p.m} * p.heads, states = rows * slices(k);
    const uint64_t head_groups = rows / knob_u32(k, "qpg");
    return (ceil_div(head_groups, 4) * 4 + ceil_div(2 * states, 4) * 4 + states * p.k) * 4;
  }
  ShaderSpec source(const Knobs& k) const override {
    return {"sdpa_online.comp",
            {{"WG", str(knob_u32(k, "wg"))},
             {"KEYS", str(knob_u32(k, "keys"))},
             {"VEC", str(knob_u32(k, "vec"))},
             {"SLICES", str(slices(k))},
             {"QPG", str(knob_u32(k, "qpg"))}}};
  }
  std::array<uint32_t, 3> groups(const Knobs& k, const Problem& p,
                                 const vk::DeviceInfo& d) const override {
    return {clamp_groups(uint64_t{p.m} * p.heads / knob_u32(k, "qpg") * slices(k), d), 1, 1};
  }

 protected:
  std::string combination_error(const Knobs& k) const override {
    // The shader's acc [qpg][ACC] of VTYPE, ACC = ceil(DMAX / vec / wg), and s [keys][qpg].
    const uint32_t vec = knob_u32(k, "vec"), qpg = knob_u32(k, "qpg");
    const uint32_t acc =
        static_cast<uint32_t>(ceil_div(kMaxHeadDim / vec, knob_u32(k, "wg"))) * vec;
    if (const uint32_t live = qpg * (acc + knob_u32(k, "keys")); live > kMaxLiveFloats) {
      return "qpg=" + str(qpg) + " keeps " + str(live) + " accumulator and score floats live " +
             "per invocation, more than " + str(kMaxLiveFloats) + " (register pressure)";
    }
    return {};
  }

 private:
  uint32_t slices(const Knobs& k) const { return split_ ? knob_u32(k, "slices") : 1; }

  bool split_;
};

}  // namespace

VKTUNE_CATALOGUE_FAMILIES(sdpa_online) {
  static const SdpaOnline fused_f32(false, DType::f32), fused_f16(false, DType::f16);
  static const SdpaOnline split_f32(true, DType::f32), split_f16(true, DType::f16);
  return {&fused_f32, &fused_f16, &split_f32, &split_f16};
}

}  // namespace vktune::kernels
