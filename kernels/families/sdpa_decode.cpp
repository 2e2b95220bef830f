// sdpa_decode: attention for a few query tokens at the memory roof (sdpa_decode.comp). Each
// K and V row of a KV head is read once, in 16-byte loads, for every query row of its group,
// and the cache is split over enough workgroups to fill the device, the splits merged by the
// last to finish. sdpa_decode_half (fp16 only) is the same kernel with its products and their
// short sums in packed fp16: fewer instructions a step for a looser tolerance.
#include "kernels/families/families.h"
#include "kernels/families/reference.h"

namespace vktune::kernels {
namespace {

// The most tokens it serves: past this, prefill's tiled kernels read the cache less often.
constexpr uint32_t kMaxM = 8;
// 4-byte words an invocation keeps live across a step: q and acc of its rows' chunks and the raw
// K and V loads of the step and of the `ahead` steps in flight. Past this the compiler spills,
// which costs more than it saves.
constexpr uint32_t kMaxLiveWords = 160;

// What half math adds to the fp32 kernel's error, relative to the sdpa bound A (1 + 2 max S)
// (sdpa_reference.cpp), at most, in units of 2^-11 (one fp16 rounding):
//  - a score: q pre-scaled and rounded (1), and in each 16-byte chunk the product and three fmas
//    of each half and the halves' sum (5), each off by at most one rounding of the chunk's
//    sum of |q k|: 6 S; through the softmax 2 x 6 S A <= 6 of the bound;
//  - each weight rounded to fp16 (1, of A);
//  - a step's weighted values summed in fp16 over its `keys` <= 4 positions (4, of A).
// 11 in all. (Weights below fp16's normal range err by up to 2^-25 absolute each; at the gate's
// lengths that stays far below.)
constexpr double kHalfMathRoundings = 11;

class SdpaDecode final : public Family {
 public:
  enum class Math { fp32, half };
  SdpaDecode(DType dtype, Math math)
      : Family(math == Math::half ? "sdpa_decode_half" : "sdpa_decode", dtype, Op("sdpa"),
               {{"lanes", ints({4, 8, 16, 32})},
                {"chunks", ints({1, 2, 4})},
                {"keys", ints({1, 2, 4})},
                {"ahead", ints({1, 2})},
                {"wg", ints({64, 128, 256, 512})},
                {"rows", ints({1, 2, 4, 8})},
                {"splits", ints({4, 8, 16, 32, 64, 128})},
                {"reduce", words({"butterfly", "halving"})}}),
        math_(math) {}

  Constraints constraints(const Knobs& k) const override {
    Constraints c;
    c.k_multiple = chunk_values();  // whole 16-byte chunks per cache row
    c.k_max = max_head_dim(k);
    // A head dim that fills at most half of what the lanes load per row, or a block of rows
    // padded more than half, idles part of the variant where a smaller one does the same work:
    // the tuner never measures them, and the runtime must not answer them.
    if (knob_u32(k, "lanes") > 4 || knob_u32(k, "chunks") > 1) c.k_min = max_head_dim(k) / 2 + 1;
    if (const uint32_t rows = knob_u32(k, "rows"); rows > 1) c.query_rows_min = rows / 2 + 1;
    c.m_max = kMaxM;
    return c;
  }
  Layout layout(const Knobs&) const override { return Layout::none; }
  uint32_t workgroup_size(const Knobs& k) const override { return knob_u32(k, "wg"); }
  uint32_t shared_bytes(const Knobs& k) const override {
    // As the shader: per lane group and row (m, l) and acc [DCAP]; last_split.
    const uint32_t lane_groups = knob_u32(k, "wg") / knob_u32(k, "lanes");
    return (lane_groups * knob_u32(k, "rows") * (2 + max_head_dim(k)) + 1) * 4;
  }
  uint64_t workspace_bytes(const Knobs& k, const Problem& p) const override {
    // The split kernels' layout, a row block for a tile; query rows padded to whole blocks.
    return sdpa_split_workspace_bytes(uint64_t{p.kv_heads} * row_blocks(k, p),
                                      knob_u32(k, "splits"), knob_u32(k, "rows"), p.k);
  }
  ShaderSpec source(const Knobs& k) const override {
    return {"sdpa_decode.comp",
            {{"LANES", str(knob_u32(k, "lanes"))},
             {"CHUNKS", str(knob_u32(k, "chunks"))},
             {"KEYS", str(knob_u32(k, "keys"))},
             {"AHEAD", str(knob_u32(k, "ahead"))},
             {"WG", str(knob_u32(k, "wg"))},
             {"ROWS", str(knob_u32(k, "rows"))},
             {"SPLITS", str(knob_u32(k, "splits"))},
             {"HALVING", halving(k) ? "1" : "0"},
             {"HALF_MATH", math_ == Math::half ? "1" : "0"}}};
  }
  std::array<uint32_t, 3> groups(const Knobs& k, const Problem& p,
                                 const vk::DeviceInfo& d) const override {
    return {clamp_groups(uint64_t{p.kv_heads} * row_blocks(k, p) * knob_u32(k, "splits"), d), 1,
            1};
  }
  // A workgroup's block of `rows` query rows of a KV head, the last one padded, in each split.
  OutputTile output_tile(const Knobs& k) const override {
    return {knob_u32(k, "rows"), 1, knob_u32(k, "splits")};
  }

 protected:
  std::string combination_error(const Knobs& k) const override {
    if (halving(k) && knob_u32(k, "keys") * knob_u32(k, "rows") == 1) {
      return "reduce=halving with keys * rows = 1 sums one value a step, which is the butterfly";
    }
    const uint32_t chunks = knob_u32(k, "chunks");
    const uint32_t rows_words = 2 * knob_u32(k, "rows") * chunks * chunk_values();  // q, acc
    // K and V uvec4s, of this step and the `ahead` prefetched.
    const uint32_t load_words = 8 * (1 + knob_u32(k, "ahead")) * knob_u32(k, "keys") * chunks;
    if (rows_words + load_words > kMaxLiveWords) {
      return "rows, chunks, keys and ahead keep " + str(rows_words + load_words) +
             " words live per invocation, more than " + str(kMaxLiveWords) +
             " (register pressure)";
    }
    return {};
  }
  Requirements shader_requirements(const Knobs&) const override {
    Requirements r;
    r.add(Feature::subgroup_shuffle);
    if (math_ == Math::half) r.add(Feature::shader_float16);
    return r;
  }
  double arithmetic_tolerance(const Problem& p) const override {
    const double half = math_ == Math::half ? kHalfMathRoundings * 0x1p-11 : 0;
    return fp32_tolerance(p) + half;
  }
  std::string device_error(const Knobs& k, const Problem&, const vk::DeviceInfo& d) const override {
    // A row's lanes sum their dot products with shuffles, which stay inside one subgroup.
    if (const uint32_t lanes = knob_u32(k, "lanes"); d.subgroup_size != 0 && lanes > d.subgroup_size) {
      return "lanes=" + str(lanes) + " spans more than one subgroup of " + d.name + " (size " +
             str(d.subgroup_size) + "); a cache row's lanes must shuffle within one";
    }
    return {};
  }

 private:
  // A step's dot products summed by halving, not by one butterfly each, and each row's softmax
  // taken by the lanes that hold its sums (sdpa_decode.comp).
  static bool halving(const Knobs& k) { return knob_word(k, "reduce") == "halving"; }
  // Values in one 16-byte load: 8 halves or 4 floats.
  uint32_t chunk_values() const { return dtype() == DType::f16 ? 8 : 4; }
  uint32_t max_head_dim(const Knobs& k) const {
    return knob_u32(k, "lanes") * knob_u32(k, "chunks") * chunk_values();
  }
  static uint64_t row_blocks(const Knobs& k, const Problem& p) {
    const uint64_t query_rows = uint64_t{p.m} * (p.kv_heads ? p.heads / p.kv_heads : 0);
    return ceil_div(query_rows, knob_u32(k, "rows"));
  }

  const Math math_;
};

}  // namespace

VKTUNE_CATALOGUE_FAMILIES(sdpa_decode) {
  using Math = SdpaDecode::Math;
  static const SdpaDecode f32(DType::f32, Math::fp32), f16(DType::f16, Math::fp32),
      half(DType::f16, Math::half);
  return {&f32, &f16, &half};
}

}  // namespace vktune::kernels
