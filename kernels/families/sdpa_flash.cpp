// sdpa_flash_f16: prefill attention as flash attention on tensor cores (sdpa_flash.comp):
// GL_NV_cooperative_matrix 16x16x16 fp16 tiles with fp32 accumulators, a workgroup per tile
// of query rows of one KV head (its group's query heads packed together), the cache streamed in
// blocks, optionally split over the cache with the splits merged by the last to finish. A tile
// of one 16-row band split many ways serves decode of a few tokens with GQA.
// sdpa_flash_khr_f16: the same kernel through GL_KHR_cooperative_matrix (the API AMD and Intel
// GPUs expose as well as NVIDIA's; the newer compiler, so its modules ship prebuilt). fp16 only:
// the tensor cores take fp16 operands, which an f32 problem would round.
//
// Every knob is a define, in both families, so each variant is a module of its own (423 prebuilt
// for the KHR family): with the sizes as specialisation constants (one module per stages and
// split) the H200 ran the KHR kernel 1.7-1.9x slower at M 128 and 512 (docs/results/h200.md).
#include <algorithm>

#include "kernels/families/families.h"
#include "kernels/families/reference.h"

namespace vktune::kernels {
namespace {

constexpr uint32_t kSubgroupSize = 32;  // SG_SIZE in the shader
constexpr uint32_t kBandRows = 16;      // query rows a subgroup owns
// 4-byte registers a lane holds for the next block's K and V with stages=2. Beside q's
// fragments and the accumulators (HD / 16 * 12 at HD 128) more spills; with dsplit=2 a lane holds
// half the accumulators, and the registers that frees may hold more of the next block.
constexpr uint32_t kMaxPrefetchWords = 32;
// A split keeps at least this many blocks of the cache, or it is all prologue and hand-over.
constexpr uint32_t kMinBlocksPerSplit = 2;
// Splits of the cache a tile of more than one band takes at most. A tile of one band serves a
// few tokens (decode with GQA: 4 tokens' 4 query heads of a KV head fill it), so only its splits
// fill the device: 8 KV heads at M 4, L 32768 took 83.4 us with 32 splits, 117.1 with 16, on
// the H200.
constexpr uint32_t kMaxBandSplits = 8;

// Which cooperative-matrix API the tiles go through.
enum class Api { nv, khr };

class SdpaFlash final : public Family {
 public:
  // hd: the head dim, exactly (q's fragments and the accumulators are registers sized by it); br:
  // query rows a workgroup (16 a subgroup; 16 for decode's few rows, split many ways); bc: cache
  // positions a block; stages: 1 fetch then stage each block, the scores over K; 2 fetch the next
  // block into registers during this one's multiplies; 3 as 2, the scores apart; 4 as 3, two K
  // and V buffers; splits: slices of the cache a tile's workgroups share; dsplit: subgroups a
  // 16-row band, each with the band's accumulators over hd / dsplit of the head dim (2: half the
  // accumulator registers).
  explicit SdpaFlash(Api api)
      : Family(api == Api::khr ? "sdpa_flash_khr" : "sdpa_flash", DType::f16, Op("sdpa"),
               {{"hd", ints({64, 128, 256})},
                {"br", ints({16, 32, 64, 128})},
                {"bc", ints({32, 64})},
                {"stages", ints({1, 2, 3, 4})},
                {"splits", ints({1, 2, 4, 8, 16, 32, 64})},
                {"dsplit", ints({1, 2})}}),
        api_(api) {}

  Constraints constraints(const Knobs& k) const override {
    Constraints c;
    c.k_multiple = knob_u32(k, "hd");  // with k_max: D == hd
    c.k_max = knob_u32(k, "hd");
    c.head_group_max = knob_u32(k, "br");  // a tile holds whole head groups
    if (const uint32_t splits = knob_u32(k, "splits"); splits > 1) {
      // A split over the cache is for tiles too few to fill the GPU, each split keeping at least
      // kMinBlocksPerSplit blocks (else it is all prologue and hand-over): the longest tile's.
      c.split_tile_rows = knob_u32(k, "br");
      c.n_min = (kMinBlocksPerSplit * splits - 1) * knob_u32(k, "bc") + 1;
    }
    return c;
  }
  Layout layout(const Knobs&) const override { return Layout::none; }
  uint32_t workgroup_size(const Knobs& k) const override {
    return knob_u32(k, "br") / kBandRows * knob_u32(k, "dsplit") * kSubgroupSize;
  }
  uint32_t shared_bytes(const Knobs& k) const override {
    // As the shader, in 16-byte units: a K and a V block (two of each with stages=4) and the
    // bands' scores (over K with stages 1 and 2), q staged over all of it; with dsplit=2 each
    // subgroup's P rows; then row_scale [16 a subgroup] and row_table [256] floats.
    const uint32_t hd = knob_u32(k, "hd"), br = knob_u32(k, "br"), bc = knob_u32(k, "bc");
    const uint32_t subgroups = workgroup_size(k) / kSubgroupSize;
    const uint32_t own4 =
        knob_u32(k, "dsplit") > 1 ? subgroups * kBandRows * std::max(bc / 8 + 1, 4u) : 0;
    const uint32_t row4 = hd / 8 + 1, kv4 = bc * row4;
    const uint32_t scores4 = br / kBandRows * kBandRows * (bc / 4 + 1);
    const uint32_t stages = knob_u32(k, "stages");
    const uint32_t blocks4 = stages >= 3 ? (stages == 4 ? 4 : 2) * kv4 + scores4
                                         : std::max(kv4, scores4) + kv4;
    // With splits, the merge's weights [splits, br] and last_split (16 bytes,
    // sdpa_split_merge.glsl).
    const uint32_t splits = knob_u32(k, "splits");
    return 16 * (std::max(blocks4, br * row4) + own4) + 4 * (subgroups * kBandRows + 256) +
           (splits > 1 ? 4 * splits * br + 16 : 0);
  }
  uint64_t workspace_bytes(const Knobs& k, const Problem& p) const override {
    const uint32_t splits = knob_u32(k, "splits");
    if (splits == 1) return 0;
    return sdpa_split_workspace_bytes(tiles(k, p), splits, knob_u32(k, "br"), knob_u32(k, "hd"));
  }
  ShaderSpec source(const Knobs& k) const override {
    ShaderSpec spec{"sdpa_flash.comp",
                    {{"HD", str(knob_u32(k, "hd"))},
                     {"BR", str(knob_u32(k, "br"))},
                     {"BC", str(knob_u32(k, "bc"))},
                     {"STAGES", str(knob_u32(k, "stages"))},
                     {"SPLITS", str(knob_u32(k, "splits"))},
                     {"DSPLIT", str(knob_u32(k, "dsplit"))}}};
    if (api_ == Api::khr) spec.defines.emplace_back("KHR", "1");  // coopmat_api.glsl
    return spec;
  }
  std::array<uint32_t, 3> groups(const Knobs& k, const Problem& p,
                                 const vk::DeviceInfo& d) const override {
    return {clamp_groups(tiles(k, p) * knob_u32(k, "splits"), d), 1, 1};
  }
  // A tile of `br` query rows of a KV head, the last one padded, in each split.
  OutputTile output_tile(const Knobs& k) const override {
    return {knob_u32(k, "br"), 1, knob_u32(k, "splits")};
  }
  // P (the softmax numerators) is rounded to fp16 for the tensor cores, each by at most 2^-11
  // relative; the row sum adds the rounded values, so the weights p_j / sum p move by at most
  // 2 * 2^-11 relative and out by 2 * 2^-11 of sum_j p_j |v_j| <= the bound. The rest is the
  // fp32 arithmetic's: the products of fp16 values are exact, the sums fp32.
  double arithmetic_tolerance(const Problem& p) const override {
    return fp32_tolerance(p) + 2 * fp16_output_tolerance();
  }

 protected:
  std::string combination_error(const Knobs& k) const override {
    const uint32_t br = knob_u32(k, "br"), hd = knob_u32(k, "hd");
    if (const uint32_t splits = knob_u32(k, "splits"); splits > kMaxBandSplits && br > kBandRows) {
      return "splits=" + str(splits) + " with br=" + str(br) + ": more than " +
             str(kMaxBandSplits) + " splits are for a tile of one band (br=" + str(kBandRows) +
             "), whose few rows fill the device only through its splits";
    }
    if (br == kBandRows && hd > 128) {
      return "br=" + str(br) + " at hd=" + str(hd) + ": the band's 32 or 64 lanes fetch a block " +
             "into 128-512 registers each, beside the 128-192 of q's fragments and the " +
             "accumulators";
    }
    if (knob_u32(k, "dsplit") > 1 && hd < 128) {
      return "dsplit=" + str(knob_u32(k, "dsplit")) + " at hd=" + str(hd) +
             ": a band's accumulators take 32 registers a lane, and splitting them only adds a "
             "barrier a block";
    }
    if (knob_u32(k, "stages") >= 2) {
      const uint32_t chunks = knob_u32(k, "bc") * hd / 8;
      const uint32_t words = 2 * 4 * static_cast<uint32_t>(ceil_div(chunks, workgroup_size(k)));
      // 8 registers a 16x16 fp32 accumulator, hd / 16 of them a band, 1 / dsplit a lane.
      const uint32_t dsplit = knob_u32(k, "dsplit"), accumulators = hd / 16 * 8;
      const uint32_t limit = kMaxPrefetchWords + accumulators - accumulators / dsplit;
      if (words > limit) {
        return "stages=" + str(knob_u32(k, "stages")) + " holds " + str(words) +
               " words of the next K and V block per lane, more than " + str(limit) +
               " (register pressure)";
      }
    }
    return {};
  }
  Requirements shader_requirements(const Knobs& k) const override {
    Requirements r;
    if (api_ == Api::khr) {
      r.add(Feature::cooperative_matrix_khr).add(GlslExtension::cooperative_matrix_khr);
    } else {
      r.add(Feature::cooperative_matrix_nv);
    }
    r.add(Feature::shader_float16).add(Feature::subgroup_shuffle);
    // hd 256 decides in a subgroup reduction whether a block rescales O (the shader's LAZY).
    if (knob_u32(k, "hd") > 128) r.add(Feature::subgroup_arithmetic);
    r.subgroup_size = kSubgroupSize;
    return r;
  }
  std::string device_error(const Knobs&, const Problem&, const vk::DeviceInfo& d) const override {
    return f16_tile_error(d, api_ == Api::khr);
  }

 private:
  // Tiles of whole head groups, br / group tokens each, times the KV heads.
  static uint64_t tiles(const Knobs& k, const Problem& p) {
    return sdpa_tiles(knob_u32(k, "br"), p);
  }

  Api api_;
};

}  // namespace

// fp16 only: prefill on tensor cores.
VKTUNE_CATALOGUE_FAMILIES(sdpa_flash) {
  static const SdpaFlash nv(Api::nv), khr(Api::khr);
  return {&nv, &khr};
}

}  // namespace vktune::kernels
