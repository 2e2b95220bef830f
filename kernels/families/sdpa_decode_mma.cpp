// sdpa_decode_mma_f16: attention for a few tokens with GQA on tensor cores (sdpa_decode_mma.comp):
// up to 16 query rows of a KV head as one band of GL_NV_cooperative_matrix 16x16x16 fp16 tiles,
// the cache read once by subgroups that each stream their own blocks, split over the cache with
// the splits merged by the last to finish. Where the scalar decode kernels' products grow with
// the rows (4 tokens of 4 query heads a KV head: 16 rows), here 16 rows cost what 4 do.
// sdpa_decode_mma_khr_f16: the same kernel through GL_KHR_cooperative_matrix (the newer compiler,
// so its modules ship prebuilt). fp16 only, as the flash families.
#include <algorithm>

#include "kernels/families/families.h"
#include "kernels/families/reference.h"

namespace vktune::kernels {
namespace {

constexpr uint32_t kSubgroupSize = 32;  // SG_SIZE in the shader
constexpr uint32_t kBandRows = 16;      // query rows a tile
// The most tokens it serves: past a band of one KV head's rows, prefill's tiles of several bands
// read the cache less often.
constexpr uint32_t kMaxM = 16;
// 4-byte registers a lane holds for O's accumulators (8 a 16x16 fp32 fragment) and a block's K and
// V in flight. Past this the compiler spills or holds too few subgroups a multiprocessor.
constexpr uint32_t kMaxBlockWords = 128;

enum class Api { nv, khr };

class SdpaDecodeMma final : public Family {
 public:
  // hd: the head dim, exactly; bc: cache positions a subgroup's block; sgs: subgroups a
  // workgroup, each streaming its own blocks; splits: slices of the cache a band's workgroups
  // share; v_staged: 1 V's rows go through the subgroup's shared memory as K's do, fetched a
  // block ahead; 0 V's fragments are loaded from the cache as they are needed (half the shared
  // memory: room for 8 subgroups at hd 128).
  explicit SdpaDecodeMma(Api api)
      : Family(api == Api::khr ? "sdpa_decode_mma_khr" : "sdpa_decode_mma", DType::f16, Op("sdpa"),
               {{"hd", ints({64, 128})},
                {"bc", ints({16, 32})},
                {"sgs", ints({4, 8})},
                {"splits", ints({2, 4, 8, 16, 32, 64})},
                {"v_staged", ints({0, 1})}}),
        api_(api) {}

  Constraints constraints(const Knobs& k) const override {
    Constraints c;
    c.k_multiple = knob_u32(k, "hd");  // with k_max: D == hd
    c.k_max = knob_u32(k, "hd");
    c.head_group_max = kBandRows;  // a band holds whole head groups
    c.m_max = kMaxM;
    // The cache's last block is read in full from L - bc, and every subgroup of every split has
    // a block.
    const uint32_t bc = knob_u32(k, "bc");
    c.n_min = (knob_u32(k, "sgs") * knob_u32(k, "splits") - 1) * bc + 1;
    c.split_tile_rows = kBandRows;
    return c;
  }
  Layout layout(const Knobs&) const override { return Layout::none; }
  uint32_t workgroup_size(const Knobs& k) const override {
    return knob_u32(k, "sgs") * kSubgroupSize;
  }
  uint32_t shared_bytes(const Knobs& k) const override {
    // As the shader, in 16-byte units: the larger of the subgroups' scratch (a K block or its
    // score rows, and a V block) and half the subgroups' O, then q's rows; then row_scale, sg_m
    // and sg_l [16 a subgroup] and row_table [256] floats, and the merge's weights [splits, 16]
    // and last_split.
    const uint32_t hd = knob_u32(k, "hd"), bc = knob_u32(k, "bc"), sgs = knob_u32(k, "sgs");
    const uint32_t row4 = hd / 8 + 1, block4 = bc * row4;
    const uint32_t scratch4 =
        std::max(block4, kBandRows * (bc / 4 + 1)) + knob_u32(k, "v_staged") * block4;
    const uint32_t slots4 = std::max(sgs / 2, 1u) * kBandRows * (hd / 4 + 1);
    return 16 * (std::max(sgs * scratch4, slots4) + kBandRows * row4) +
           4 * (3 * sgs * kBandRows + 256) + 4 * knob_u32(k, "splits") * kBandRows + 16;
  }
  uint64_t workspace_bytes(const Knobs& k, const Problem& p) const override {
    return sdpa_split_workspace_bytes(sdpa_tiles(kBandRows, p), knob_u32(k, "splits"), kBandRows,
                                      knob_u32(k, "hd"));
  }
  ShaderSpec source(const Knobs& k) const override {
    ShaderSpec spec{"sdpa_decode_mma.comp",
                    {{"HD", str(knob_u32(k, "hd"))},
                     {"BC", str(knob_u32(k, "bc"))},
                     {"SGS", str(knob_u32(k, "sgs"))},
                     {"SPLITS", str(knob_u32(k, "splits"))},
                     {"V_STAGED", str(knob_u32(k, "v_staged"))}}};
    if (api_ == Api::khr) spec.defines.emplace_back("KHR", "1");  // coopmat_api.glsl
    return spec;
  }
  std::array<uint32_t, 3> groups(const Knobs& k, const Problem& p,
                                 const vk::DeviceInfo& d) const override {
    return {clamp_groups(sdpa_tiles(kBandRows, p) * knob_u32(k, "splits"), d), 1, 1};
  }
  // A KV head's band of 16 query rows, padded past its real ones, in each split.
  OutputTile output_tile(const Knobs& k) const override {
    return {kBandRows, 1, knob_u32(k, "splits")};
  }
  // As sdpa_flash's: P rounded to fp16 for the tensor cores moves each weight by at most
  // 2 * 2^-11 relative; the products of fp16 values are exact, the sums fp32.
  double arithmetic_tolerance(const Problem& p) const override {
    return fp32_tolerance(p) + 2 * fp16_output_tolerance();
  }

 protected:
  std::string combination_error(const Knobs& k) const override {
    const uint32_t hd = knob_u32(k, "hd"), bc = knob_u32(k, "bc");
    const uint32_t words = hd / 16 * 8 + 2 * bc * hd / 8 / kSubgroupSize * 4;
    if (words > kMaxBlockWords) {
      return "hd=" + str(hd) + " with bc=" + str(bc) + " holds " + str(words) +
             " words of O and of a block's K and V per lane, more than " + str(kMaxBlockWords) +
             " (register pressure)";
    }
    return {};
  }
  Requirements shader_requirements(const Knobs&) const override {
    Requirements r;
    if (api_ == Api::khr) {
      r.add(Feature::cooperative_matrix_khr).add(GlslExtension::cooperative_matrix_khr);
    } else {
      r.add(Feature::cooperative_matrix_nv);
    }
    // Whether a block rescales O is decided in a subgroup reduction.
    r.add(Feature::shader_float16).add(Feature::subgroup_shuffle).add(Feature::subgroup_arithmetic);
    r.subgroup_size = kSubgroupSize;
    return r;
  }
  std::string device_error(const Knobs&, const Problem&, const vk::DeviceInfo& d) const override {
    return f16_tile_error(d, api_ == Api::khr);
  }

 private:
  Api api_;
};

}  // namespace

VKTUNE_CATALOGUE_FAMILIES(sdpa_decode_mma) {
  static const SdpaDecodeMma nv(Api::nv), khr(Api::khr);
  return {&nv, &khr};
}

}  // namespace vktune::kernels
