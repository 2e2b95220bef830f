// sdpa_fused and sdpa_split: the single-pass online-softmax kernel (sdpa_online.comp), one
// workgroup per (token, head), or per (token, head, slice of the context) merged by the last
// slice to finish (split context: decode has too few rows to fill a GPU otherwise).
#include "kernels/families/families.h"

namespace vktune::kernels {
namespace {

// The shader's DMAX: q is staged in shared memory and the accumulator kept in registers.
constexpr uint32_t kMaxHeadDim = 256;

std::vector<KnobSpec> online_knobs(bool split) {
  // vec: 4 reads q, K and V as vec4 (D % 4 == 0); keys: positions per invocation per step.
  std::vector<KnobSpec> knobs = {
      {"vec", ints({1, 4})}, {"keys", ints({1, 2, 4})}, {"wg", ints({32, 64, 128})}};
  if (split) knobs.push_back({"slices", ints({2, 4, 8, 16, 32})});
  return knobs;
}

class SdpaOnline final : public Family {
 public:
  explicit SdpaOnline(bool split)
      : Family(split ? "sdpa_split" : "sdpa_fused", DType::f32, Op::sdpa, online_knobs(split)),
        split_(split) {}

  Constraints constraints(const Knobs& k) const override {
    Constraints c;
    c.k_multiple = static_cast<uint32_t>(knob_int(k, "vec"));
    c.k_max = kMaxHeadDim;
    return c;
  }
  Layout layout(const Knobs&) const override { return Layout::none; }
  uint32_t workgroup_size(const Knobs& k) const override { return get(k, "wg"); }
  uint32_t shared_bytes(const Knobs& k) const override {
    // As the shader: qs [DMAX], ps [wg * keys], the reduction [wg], the split's last_slice.
    return (kMaxHeadDim + get(k, "wg") * get(k, "keys") + get(k, "wg") + (split_ ? 1 : 0)) * 4;
  }
  uint64_t workspace_bytes(const Knobs& k, const Problem& p) const override {
    if (!split_) return 0;
    // As the shader: a counter per row, (m, l) per (row, slice), each part rounded up to 4
    // words, then acc [rows, slices, D].
    const uint64_t rows = uint64_t{p.m} * p.heads, states = rows * slices(k);
    return (ceil_div(rows, 4) * 4 + ceil_div(2 * states, 4) * 4 + states * p.k) * 4;
  }
  ShaderSpec source(const Knobs& k) const override {
    return {"sdpa_online.comp",
            {{"WG", str(get(k, "wg"))},
             {"KEYS", str(get(k, "keys"))},
             {"VEC", str(get(k, "vec"))},
             {"SLICES", str(slices(k))}}};
  }
  std::array<uint32_t, 3> groups(const Knobs& k, const Problem& p,
                                 const vk::DeviceInfo& d) const override {
    return {clamp_groups(uint64_t{p.m} * p.heads * slices(k), d), 1, 1};
  }

 private:
  static uint32_t get(const Knobs& k, std::string_view name) {
    return static_cast<uint32_t>(knob_int(k, name));
  }
  uint32_t slices(const Knobs& k) const { return split_ ? get(k, "slices") : 1; }

  bool split_;
};

}  // namespace

const Family& sdpa_fused_family() {
  static const SdpaOnline family(false);
  return family;
}

const Family& sdpa_split_family() {
  static const SdpaOnline family(true);
  return family;
}

}  // namespace vktune::kernels
