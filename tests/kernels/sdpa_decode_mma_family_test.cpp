// sdpa_decode_mma_f16's descriptor: where it is offered, the shapes it takes (one 16-row band of a
// KV head's rows a tile, its head dim exactly, enough cache for every subgroup of every split),
// its workgroups, workspace and shared memory; sdpa_decode_mma_khr_f16's: the same through
// GL_KHR_cooperative_matrix. Fake devices and compilers; no GPU (sdpa_flash_test.cpp runs the
// kernels where a device has cooperative matrices).
#include <gtest/gtest.h>

#include <algorithm>

#include "kernels/compiler_support.h"
#include "kernels/family.h"
#include "tests/kernels/fake_devices.h"
#include "tests/kernels/sdpa_problem.h"

namespace vktune::kernels {
namespace {

const Family& mma() { return *find_family("sdpa_decode_mma_f16"); }
const Family& mma_khr() { return *find_family("sdpa_decode_mma_khr_f16"); }
Knobs knobs(std::string_view key) { return parse_key(key).knobs; }
Problem sdpa(uint32_t m, uint32_t l, uint32_t heads, uint32_t kv_heads, uint32_t d) {
  return test::sdpa_problem(m, l, heads, kv_heads, d, DType::f16);
}

constexpr const char* kTarget = "sdpa_decode_mma_f16[hd=128,bc=16,sgs=4,splits=16,v_staged=1]";

TEST(SdpaDecodeMmaFamily, OfferedOnlyWhereTheTensorCoreTileIs) {
  EXPECT_NE(mma().unavailable_reason(test::lavapipe_like()), "");
  EXPECT_EQ(mma().unavailable_reason(test::h100_like()), "");
  vk::DeviceInfo no_coopmat = test::h100_like();
  no_coopmat.features.coopmat_nv = false;
  EXPECT_EQ(mma().unavailable_reason(no_coopmat),
            "NVIDIA H100 (fake) lacks VK_NV_cooperative_matrix, which sdpa_decode_mma_f16 needs "
            "for its tensor-core tiles");
  EXPECT_NE(mma_khr()
                .unavailable_reason(test::h100_with_khr(), CompilerSupport{})
                .find("GL_KHR_cooperative_matrix, which the linked shaderc does not"),
            std::string::npos);
  EXPECT_EQ(mma_khr().unavailable_reason(test::h100_with_khr(), test::newer_compiler()), "");
}

TEST(SdpaDecodeMmaFamily, ABandOfUpTo16RowsOfAKvHeadItsHeadDimExactly) {
  const vk::DeviceInfo d = test::h100_like();
  const Knobs k = knobs(kTarget);
  // 4 tokens of 4 query heads a KV head fill one band: 8 tiles, 16 splits each.
  EXPECT_TRUE(mma().legality(k, sdpa(4, 8192, 32, 8, 128), d).ok);
  EXPECT_EQ(mma().groups(k, sdpa(4, 8192, 32, 8, 128), d), (std::array<uint32_t, 3>{128, 1, 1}));
  // 8 heads a KV head: two tokens a band, so 5 tokens take 3.
  EXPECT_EQ(mma().groups(k, sdpa(5, 8192, 64, 8, 128), d)[0], 3u * 8u * 16u);
  EXPECT_EQ(mma().workgroup_size(k), 128u);
  const auto refused = [&](const Problem& p, std::string_view why) {
    const Legality l = mma().legality(k, p, d);
    EXPECT_FALSE(l.ok) << p.m << " " << p.heads;
    EXPECT_NE(l.reason.find(why), std::string::npos) << l.reason;
  };
  refused(sdpa(1, 8192, 32, 8, 64), "D=64");
  refused(sdpa(1, 8192, 64, 2, 128), "32 query heads per KV head are above");
  refused(sdpa(17, 8192, 8, 8, 128), "M=17");
}

TEST(SdpaDecodeMmaFamily, EverySubgroupOfEverySplitHasABlock) {
  const vk::DeviceInfo d = test::h100_like();
  // 8 subgroups x 16 splits of 16 positions: the last subgroup's block starts at 2032.
  const Knobs k = knobs("sdpa_decode_mma_f16[hd=128,bc=16,sgs=8,splits=16,v_staged=0]");
  EXPECT_TRUE(mma().legality(k, sdpa(1, 2033, 32, 8, 128), d).ok);
  const Legality l = mma().legality(k, sdpa(1, 2032, 32, 8, 128), d);
  EXPECT_FALSE(l.ok);
  EXPECT_NE(l.reason.find("N=2032 is below this variant's n_min=2033"), std::string::npos)
      << l.reason;
}

TEST(SdpaDecodeMmaFamily, RegistersAndSharedMemoryBoundTheBlocks) {
  const auto offered = [](std::string_view key) {
    const std::vector<Knobs> all = mma().all_variants();
    return std::find(all.begin(), all.end(), knobs(key)) != all.end();
  };
  // O's 64 accumulator words a lane at hd 128 leave room for a block of 16 positions only.
  EXPECT_TRUE(offered("sdpa_decode_mma_f16[hd=64,bc=32,sgs=4,splits=16,v_staged=1]"));
  EXPECT_FALSE(offered("sdpa_decode_mma_f16[hd=128,bc=32,sgs=4,splits=16,v_staged=1]"));
  // The NVIDIA driver reported 42,000 bytes of shared memory for this variant on the H200.
  EXPECT_EQ(mma().shared_bytes(knobs(kTarget)), 42000u);
  // 8 subgroups staging K and V at hd 128 need 70 KB, past 48.
  const Legality l =
      mma().legality(knobs("sdpa_decode_mma_f16[hd=128,bc=16,sgs=8,splits=16,v_staged=1]"),
                     sdpa(1, 8192, 32, 8, 128), test::h100_like());
  EXPECT_FALSE(l.ok);
  EXPECT_NE(l.reason.find("shared memory"), std::string::npos) << l.reason;
  EXPECT_TRUE(mma()
                  .legality(knobs("sdpa_decode_mma_f16[hd=128,bc=16,sgs=8,splits=16,v_staged=0]"),
                            sdpa(1, 8192, 32, 8, 128), test::h100_like())
                  .ok);
}

TEST(SdpaDecodeMmaFamily, TheSplitsStatesInTheWorkspace) {
  // 8 tiles x 16 splits x 16 rows: 8 counters, (m, l) of 2,048 rows, then their 128 fp32
  // outputs each.
  EXPECT_EQ(mma().workspace_bytes(knobs(kTarget), sdpa(4, 8192, 32, 8, 128)),
            (8u + 2u * 2048u + 2048u * 128u) * 4u);
}

// The NV family's variants, legality and geometry through the KHR extension.
TEST(SdpaDecodeMmaFamily, TheKhrFamilyIsTheNvFamilyThroughTheKhrExtension) {
  ASSERT_EQ(mma_khr().all_variants(), mma().all_variants());
  EXPECT_EQ(mma().all_variants().size(), 72u);  // as docs/variants.md says
  const vk::DeviceInfo d = test::h100_with_khr();
  for (const Problem& p : {sdpa(1, 8192, 32, 8, 128), sdpa(4, 999, 16, 4, 64)}) {
    for (const Knobs& k : mma().all_variants()) {
      EXPECT_EQ(mma().legality(k, p, d).ok, mma_khr().legality(k, p, d, test::newer_compiler()).ok)
          << mma().key(k);
      EXPECT_EQ(mma_khr().groups(k, p, d), mma().groups(k, p, d));
      EXPECT_EQ(mma_khr().shared_bytes(k), mma().shared_bytes(k));
      ShaderSpec spec = mma_khr().shader(k);
      const auto khr = std::find(spec.defines.begin(), spec.defines.end(),
                                 std::pair<std::string, std::string>{"KHR", "1"});
      ASSERT_NE(khr, spec.defines.end());
      spec.defines.erase(khr);
      EXPECT_EQ(spec.defines, mma().shader(k).defines);
    }
  }
}

}  // namespace
}  // namespace vktune::kernels
