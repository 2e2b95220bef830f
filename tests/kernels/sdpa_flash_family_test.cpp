// sdpa_flash_f16's descriptor: where it is offered and why not, the shapes it refuses, its
// workgroups, splits, workspace and tolerance; sdpa_flash_khr_f16's: the same tiles through
// GL_KHR_cooperative_matrix, their sizes as specialisation constants. Fake devices and compilers;
// no GPU (lavapipe has no cooperative matrices: sdpa_flash_test.cpp runs them where a device has).
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "kernels/compiler_support.h"
#include "kernels/family.h"
#include "tests/kernels/fake_devices.h"
#include "tests/kernels/sdpa_problem.h"

namespace vktune::kernels {
namespace {

const Family& flash() { return *find_family("sdpa_flash_f16"); }
Knobs knobs(std::string_view key) { return parse_key(key).knobs; }
Problem sdpa(uint32_t m, uint32_t l, uint32_t heads, uint32_t kv_heads, uint32_t d) {
  return test::sdpa_problem(m, l, heads, kv_heads, d, DType::f16);
}

constexpr const char* kTarget = "sdpa_flash_f16[hd=128,br=64,bc=64,stages=1,splits=1,dsplit=1]";
// Whether the family's variant list holds `key` (a combination it refuses for every shape does
// not).
bool offered(std::string_view key) {
  const std::vector<Knobs> variants = flash().all_variants();
  return std::find(variants.begin(), variants.end(), knobs(key)) != variants.end();
}

TEST(SdpaFlashFamily, OfferedOnlyWhereTheTensorCoreTileIs) {
  EXPECT_EQ(flash().dtype(), DType::f16);
  EXPECT_NE(flash().unavailable_reason(test::lavapipe_like()), "");
  vk::DeviceInfo no_coopmat = test::h100_like();
  no_coopmat.features.coopmat_nv = false;
  EXPECT_EQ(flash().unavailable_reason(no_coopmat),
            "NVIDIA H100 (fake) lacks VK_NV_cooperative_matrix, which sdpa_flash_f16 needs for its "
            "tensor-core tiles");
  EXPECT_EQ(flash().unavailable_reason(test::h100_like()), "");
  vk::DeviceInfo no_tile = test::h100_like();
  no_tile.features.coopmat_shapes = {{16, 8, 16, "f16", "f16", "f16", "f16"}};
  const Legality l = flash().legality(knobs(kTarget), sdpa(128, 2048, 32, 8, 128), no_tile);
  EXPECT_FALSE(l.ok);
  EXPECT_NE(l.reason.find("lacks the cooperative-matrix shape 16x16x16 f16*f16+f32"),
            std::string::npos)
      << l.reason;
}

TEST(SdpaFlashFamily, TakesItsHeadDimExactlyAndWholeHeadGroups) {
  const vk::DeviceInfo d = test::h100_like();
  const Knobs k = knobs(kTarget);
  EXPECT_TRUE(flash().legality(k, sdpa(128, 2048, 32, 8, 128), d).ok);
  EXPECT_TRUE(flash().legality(k, sdpa(37, 1001, 12, 4, 128), d).ok);  // ragged everywhere

  const Legality d64 = flash().legality(k, sdpa(128, 2048, 32, 8, 64), d);
  EXPECT_FALSE(d64.ok);
  EXPECT_NE(d64.reason.find("not a multiple of 128"), std::string::npos) << d64.reason;
  EXPECT_FALSE(flash().legality(k, sdpa(128, 2048, 32, 8, 256), d).ok);

  const Legality wide = flash().legality(k, sdpa(128, 2048, 128, 1, 128), d);
  EXPECT_FALSE(wide.ok);
  EXPECT_NE(wide.reason.find("the 128 query heads per KV head are above this variant's "
                             "head_group_max=64 (a tile holds whole groups)"),
            std::string::npos)
      << wide.reason;
}

TEST(SdpaFlashFamily, SharedMemoryAndPrefetchRegistersBoundTheTiles) {
  const vk::DeviceInfo d = test::h100_like();
  // 128 rows by 64 positions at hd 128: the 8 subgroups' scores (64 floats a row) and a V block
  // pass 48 KiB.
  const Problem p = sdpa(128, 2048, 32, 8, 128);
  const Knobs big = knobs("sdpa_flash_f16[hd=128,br=128,bc=64,stages=1,splits=1,dsplit=1]");
  EXPECT_GT(flash().shared_bytes(big), 49152u);
  EXPECT_FALSE(flash().legality(big, p, d).ok);
  // The scores apart from K (stages=3) fit 128 rows by 32 positions; two K and V blocks beside
  // them (stages=4) fit 64 rows, not 128.
  const Knobs apart = knobs("sdpa_flash_f16[hd=128,br=128,bc=32,stages=3,splits=8,dsplit=1]");
  EXPECT_TRUE(flash().legality(apart, p, d).ok);
  const Knobs doubled = knobs("sdpa_flash_f16[hd=128,br=64,bc=32,stages=4,splits=8,dsplit=1]");
  EXPECT_LE(flash().shared_bytes(doubled), 49152u);
  EXPECT_TRUE(flash().legality(doubled, p, d).ok);
  const Knobs tall = knobs("sdpa_flash_f16[hd=128,br=128,bc=32,stages=4,splits=1,dsplit=1]");
  EXPECT_FALSE(flash().legality(tall, p, d).ok);
  EXPECT_LE(flash().shared_bytes(knobs(kTarget)), 49152u);
  EXPECT_EQ(flash().workgroup_size(knobs(kTarget)), 128u);

  // A 64-position block of hd 128 over 64 lanes would hold 128 words of K and V a lane.
  EXPECT_FALSE(offered("sdpa_flash_f16[hd=128,br=32,bc=64,stages=2,splits=1,dsplit=1]"));
  EXPECT_FALSE(offered("sdpa_flash_f16[hd=128,br=32,bc=64,stages=4,splits=1,dsplit=1]"));
  EXPECT_TRUE(offered("sdpa_flash_f16[hd=128,br=32,bc=64,stages=1,splits=1,dsplit=1]"));
  EXPECT_TRUE(offered("sdpa_flash_f16[hd=64,br=128,bc=32,stages=2,splits=1,dsplit=1]"));
}

TEST(SdpaFlashFamily, HeadDim256FitsBlocksOf32Positions) {
  const vk::DeviceInfo d = test::h100_like();
  const Problem p = sdpa(29, 1001, 16, 4, 256);
  const Knobs narrow = knobs("sdpa_flash_f16[hd=256,br=32,bc=32,stages=1,splits=1,dsplit=1]");
  EXPECT_TRUE(flash().legality(narrow, p, d).ok);
  // 64 staged q rows take the room of a K and a V block of 32 positions.
  const Knobs wide = knobs("sdpa_flash_f16[hd=256,br=64,bc=32,stages=1,splits=1,dsplit=1]");
  EXPECT_TRUE(flash().legality(wide, p, d).ok);
  // 128 staged q rows, a 64-position block of 256 halves beside a V block, or two K and V
  // blocks of 32 positions pass 48 KiB.
  for (const char* key : {"sdpa_flash_f16[hd=256,br=128,bc=32,stages=1,splits=1,dsplit=1]",
                          "sdpa_flash_f16[hd=256,br=32,bc=64,stages=1,splits=1,dsplit=1]",
                          "sdpa_flash_f16[hd=256,br=32,bc=32,stages=4,splits=1,dsplit=1]"}) {
    EXPECT_GT(flash().shared_bytes(knobs(key)), 49152u) << key;
    EXPECT_FALSE(flash().legality(knobs(key), p, d).ok) << key;
  }
  // Prefetching a 32 x 256 block would hold 64 words of K and V a lane.
  EXPECT_FALSE(offered("sdpa_flash_f16[hd=256,br=32,bc=32,stages=2,splits=1,dsplit=1]"));
  // The head dim is exact: a 256 variant takes no 128 head, nor a 128 variant a 256 one.
  EXPECT_FALSE(flash().legality(narrow, sdpa(29, 1001, 16, 4, 128), d).ok);
  EXPECT_FALSE(flash().legality(knobs(kTarget), p, d).ok);
}

TEST(SdpaFlashFamily, DsplitGivesEachBandTwoSubgroupsAndEachItsOwnPRows) {
  const vk::DeviceInfo d = test::h100_like();
  const Problem p = sdpa(128, 2048, 32, 8, 256);
  const Knobs one = knobs("sdpa_flash_f16[hd=256,br=32,bc=32,stages=1,splits=1,dsplit=1]");
  const Knobs two = knobs("sdpa_flash_f16[hd=256,br=32,bc=32,stages=1,splits=1,dsplit=2]");
  EXPECT_TRUE(flash().legality(two, p, d).ok);
  EXPECT_EQ(flash().workgroup_size(two), 2 * flash().workgroup_size(one));
  // 4 subgroups' P rows (16 rows of 5 uvec4 at bc 32) and 32 more row_scale floats.
  EXPECT_EQ(flash().shared_bytes(two), flash().shared_bytes(one) + 4u * 16u * 5u * 16u + 32u * 4u);
  // The sizes are the shader's: DSPLIT is passed with the rest.
  const ShaderSpec spec = flash().shader(two);
  EXPECT_NE(std::find(spec.defines.begin(), spec.defines.end(),
                      std::pair<std::string, std::string>{"DSPLIT", "2"}),
            spec.defines.end());
  // Twice the lanes make a prefetch of the next block fit where one subgroup a band did not.
  EXPECT_FALSE(offered("sdpa_flash_f16[hd=256,br=64,bc=32,stages=2,splits=1,dsplit=1]"));
  EXPECT_TRUE(offered("sdpa_flash_f16[hd=256,br=64,bc=32,stages=2,splits=1,dsplit=2]"));
  // hd 64 keeps a band's accumulators in 32 registers: nothing to relieve.
  EXPECT_FALSE(offered("sdpa_flash_f16[hd=64,br=32,bc=32,stages=1,splits=1,dsplit=2]"));
  EXPECT_TRUE(offered("sdpa_flash_f16[hd=128,br=64,bc=64,stages=1,splits=1,dsplit=2]"));
}

TEST(SdpaFlashFamily, AWorkgroupPerTileOfWholeHeadGroups) {
  const vk::DeviceInfo d = test::h100_like();
  // 37 tokens x 4 heads of a group in tiles of 16 tokens: 3 tiles per KV head, 24 in all.
  const Problem p = sdpa(37, 1001, 32, 8, 128);
  EXPECT_EQ(flash().groups(knobs(kTarget), p, d), (std::array<uint32_t, 3>{24, 1, 1}));
  EXPECT_EQ(flash().workspace_bytes(knobs(kTarget), p), 0u);
  // 3 heads a group: 21 tokens (63 rows) a tile of 64, so 37 tokens take 2 tiles.
  EXPECT_EQ(flash().groups(knobs(kTarget), sdpa(37, 1001, 12, 4, 128), d)[0], 2u * 4u);
}

TEST(SdpaFlashFamily, ASplitMultipliesTheWorkgroupsAndHoldsItsStatesInTheWorkspace) {
  const vk::DeviceInfo d = test::h100_like();
  const Knobs k = knobs("sdpa_flash_f16[hd=128,br=64,bc=64,stages=1,splits=4,dsplit=1]");
  const Problem p = sdpa(37, 1001, 32, 8, 128);  // 24 tiles, 16 blocks of the cache
  EXPECT_TRUE(flash().legality(k, p, d).ok);
  EXPECT_EQ(flash().groups(k, p, d), (std::array<uint32_t, 3>{96, 1, 1}));
  // 24 counters, (m, l) of 24 x 4 x 64 rows, then their 128 fp32 outputs each.
  EXPECT_EQ(flash().workspace_bytes(k, p), (24u + 2u * 6144u + 6144u * 128u) * 4u);
  EXPECT_EQ(flash().shared_bytes(k),
            flash().shared_bytes(knobs(kTarget)) + 4u * 4u * 64u + 16u);  // weights, last_split

  const Legality short_l =
      flash().legality(knobs("sdpa_flash_f16[hd=128,br=64,bc=64,stages=1,splits=8,dsplit=1]"),
                       sdpa(37, 900, 32, 8, 128), d);
  EXPECT_FALSE(short_l.ok);
  // 15 blocks of 64 positions, fewer than 2 for each of 8 splits.
  EXPECT_NE(short_l.reason.find("N=900 is below this variant's n_min=961"), std::string::npos)
      << short_l.reason;
  const Legality many = flash().legality(k, sdpa(4096, 4096, 32, 8, 128), d);
  EXPECT_FALSE(many.ok);
  EXPECT_NE(many.reason.find("2048 tiles of split_tile_rows=64 query rows already fill the GPU"),
            std::string::npos)
      << many.reason;
}

TEST(SdpaFlashFamily, OneBandTilesServeDecodeSplitManyWays) {
  const vk::DeviceInfo d = test::h100_like();
  // M 4 at 4 query heads a KV head: one band of 16 rows a KV head, 32 splits of L 32768.
  const Knobs band = knobs("sdpa_flash_f16[hd=128,br=16,bc=32,stages=1,splits=32,dsplit=2]");
  const Problem p = sdpa(4, 32768, 32, 8, 128);
  EXPECT_TRUE(flash().legality(band, p, d).ok) << flash().legality(band, p, d).reason;
  EXPECT_EQ(flash().groups(band, p, d), (std::array<uint32_t, 3>{8u * 32u, 1, 1}));
  EXPECT_EQ(flash().workgroup_size(band), 64u);
  // Past 8 splits only a tile of one band; a band at hd 256 holds its fetch beside 192 registers.
  EXPECT_TRUE(offered("sdpa_flash_f16[hd=128,br=32,bc=32,stages=1,splits=8,dsplit=1]"));
  EXPECT_FALSE(offered("sdpa_flash_f16[hd=128,br=32,bc=32,stages=1,splits=16,dsplit=1]"));
  EXPECT_TRUE(offered("sdpa_flash_f16[hd=64,br=16,bc=64,stages=1,splits=64,dsplit=1]"));
  EXPECT_FALSE(offered("sdpa_flash_f16[hd=256,br=16,bc=32,stages=1,splits=1,dsplit=2]"));
  // Half the accumulators a lane (dsplit=2, 32 registers at hd 128) hold the next block instead:
  // 64 words of it with 64 lanes, not 128 with 32.
  EXPECT_TRUE(offered("sdpa_flash_f16[hd=128,br=16,bc=32,stages=2,splits=32,dsplit=2]"));
  EXPECT_FALSE(offered("sdpa_flash_f16[hd=128,br=16,bc=32,stages=2,splits=32,dsplit=1]"));
  EXPECT_FALSE(offered("sdpa_flash_f16[hd=128,br=16,bc=64,stages=2,splits=32,dsplit=2]"));
  // 8 query heads a KV head: two tokens a band.
  EXPECT_EQ(flash().groups(band, sdpa(5, 32768, 64, 8, 128), d)[0], 3u * 8u * 32u);
}

TEST(SdpaFlashFamily, ToleranceAddsTheRoundingOfPToFp16) {
  const Problem p = sdpa(128, 2048, 32, 8, 128);
  const double fused = find_family("sdpa_fused_f16")->tolerance(p);
  EXPECT_DOUBLE_EQ(flash().tolerance(p), fused + 2.0 / 2048.0);
}

const Family& flash_khr() { return *find_family("sdpa_flash_khr_f16"); }
constexpr const char* kKhrTarget =
    "sdpa_flash_khr_f16[hd=128,br=64,bc=64,stages=1,splits=1,dsplit=1]";

TEST(SdpaFlashKhrFamily, OfferedOnlyWithTheCompilerTheExtensionAndTheTile) {
  using test::newer_compiler;
  EXPECT_EQ(flash_khr().dtype(), DType::f16);
  EXPECT_NE(flash_khr().unavailable_reason(test::h100_with_khr(), CompilerSupport{})
                .find("GL_KHR_cooperative_matrix, which the linked shaderc does not"),
            std::string::npos);
  // The NV extension alone, as the NV family needs it, is not enough.
  EXPECT_EQ(flash_khr().unavailable_reason(test::h100_like(), newer_compiler()),
            "NVIDIA H100 (fake) lacks VK_KHR_cooperative_matrix, which sdpa_flash_khr_f16 needs "
            "for its tensor-core tiles");
  EXPECT_EQ(flash_khr().unavailable_reason(test::h100_with_khr(), newer_compiler()), "");
  vk::DeviceInfo khr_only = test::h100_with_khr();
  khr_only.features.coopmat_nv = false;
  khr_only.features.coopmat_shapes.clear();
  const Problem p = sdpa(37, 1001, 12, 4, 128);
  EXPECT_TRUE(flash_khr().legality(knobs(kKhrTarget), p, khr_only, newer_compiler()).ok);
  EXPECT_FALSE(flash().legality(knobs(kTarget), p, khr_only, newer_compiler()).ok);

  // The KHR extension without the f16 tile: the NV extension's shapes do not count.
  vk::DeviceInfo no_tile = test::h100_with_khr();
  no_tile.features.coopmat_khr_shapes = {{16, 8, 16, "f16", "f16", "f16", "f16"}};
  const Legality l = flash_khr().legality(knobs(kKhrTarget), p, no_tile, newer_compiler());
  EXPECT_FALSE(l.ok);
  EXPECT_NE(l.reason.find("lacks the cooperative-matrix shape 16x16x16 f16*f16+f32 "
                          "(VK_KHR_cooperative_matrix)"),
            std::string::npos)
      << l.reason;
  // A GPU whose subgroups are not 32 wide (the shader's bands are 16 rows of lane pairs).
  vk::DeviceInfo wave64 = test::h100_with_khr();
  wave64.subgroup_size = 64;
  EXPECT_NE(flash_khr()
                .legality(knobs(kKhrTarget), p, wave64, newer_compiler())
                .reason.find("needs subgroup size 32"),
            std::string::npos);
}

// The NV family's tiles, legality and geometry, one variant for another.
TEST(SdpaFlashKhrFamily, TheNvFamilysTilesAndGeometry) {
  ASSERT_EQ(flash_khr().all_variants(), flash().all_variants());
  const vk::DeviceInfo d = test::h100_with_khr();
  for (const Problem& p : {sdpa(37, 1001, 32, 8, 128), sdpa(4096, 4096, 32, 8, 128),
                           sdpa(29, 1001, 16, 4, 256), sdpa(19, 19, 8, 1, 64)}) {
    for (const Knobs& k : flash().all_variants()) {
      const Legality nv = flash().legality(k, p, d),
                     khr = flash_khr().legality(k, p, d, test::newer_compiler());
      EXPECT_EQ(nv.ok, khr.ok) << flash().key(k) << ": " << nv.reason << " / " << khr.reason;
      EXPECT_EQ(flash_khr().groups(k, p, d), flash().groups(k, p, d)) << flash().key(k);
      EXPECT_EQ(flash_khr().workspace_bytes(k, p), flash().workspace_bytes(k, p));
      EXPECT_EQ(flash_khr().shared_bytes(k), flash().shared_bytes(k));
    }
  }
  const Problem p = sdpa(128, 2048, 32, 8, 128);
  EXPECT_DOUBLE_EQ(flash_khr().tolerance(p), flash().tolerance(p));
  const Requirements r = flash_khr().requirements(knobs(kKhrTarget));
  EXPECT_EQ(feature_names(r),
            (std::vector<std::string>{"storageBuffer16BitAccess", "shaderFloat16",
                                      "VK_KHR_cooperative_matrix",
                                      "VK_SUBGROUP_FEATURE_SHUFFLE_BIT"}));
  EXPECT_TRUE(r.needs(GlslExtension::cooperative_matrix_khr));
  EXPECT_FALSE(flash().requirements(knobs(kTarget)).needs(GlslExtension::cooperative_matrix_khr));
}

// The NV family's shader and defines with KHR 1: every knob a define, each variant a module of
// its own (as specialisation constants the sizes ran 1.7-1.9x slower on the H200).
TEST(SdpaFlashKhrFamily, TheNvShaderWithKhrDefinedEachVariantItsOwnModule) {
  std::set<Defines> modules;
  for (const Knobs& k : flash_khr().all_variants()) {
    ShaderSpec spec = flash_khr().shader(k);
    const ShaderSpec nv = flash().shader(k);
    EXPECT_EQ(spec.file, nv.file);
    EXPECT_TRUE(spec.specialization.empty());
    EXPECT_EQ(spec.vulkan_minor, 2u);
    modules.insert(spec.defines);
    const auto khr = std::find(spec.defines.begin(), spec.defines.end(),
                               std::pair<std::string, std::string>{"KHR", "1"});
    ASSERT_NE(khr, spec.defines.end()) << flash_khr().key(k);
    spec.defines.erase(khr);
    EXPECT_EQ(spec.defines, nv.defines) << flash_khr().key(k);
  }
  EXPECT_EQ(flash_khr().all_variants().size(), 423u);  // as docs/variants.md says
  EXPECT_EQ(modules.size(), 423u);
}

}  // namespace
}  // namespace vktune::kernels
