// q4gsw_coopmat2's descriptor: where it is offered and why not, the shapes it refuses, its
// split-K workspace and its SPIR-V target. Fake devices and compilers; no GPU.
#include <gtest/gtest.h>

#include <algorithm>

#include "kernels/compiler_support.h"
#include "kernels/family.h"
#include "tests/kernels/fake_devices.h"

namespace vktune::kernels {
namespace {

using test::newer_compiler;

vk::DeviceInfo h100_with_coopmat2() {
  vk::DeviceInfo d = test::h100_like();
  d.features.coopmat2_nv = true;
  return d;
}

const Family& coopmat2() { return *find_family("q4gsw_coopmat2"); }
Knobs knobs(std::string_view key) { return parse_key(key).knobs; }
Problem q4(uint32_t m, uint32_t n, uint32_t k, uint32_t gs) { return {Op("q4gsw"), m, n, k, gs}; }

TEST(Coopmat2Family, UnavailableWithoutTheCompilerOrTheExtension) {
  EXPECT_NE(coopmat2().unavailable_reason(h100_with_coopmat2(), CompilerSupport{})
                .find("GL_NV_cooperative_matrix2, which the linked shaderc does not"),
            std::string::npos);
  EXPECT_EQ(coopmat2().unavailable_reason(test::h100_like(), newer_compiler()),
            "NVIDIA H100 (fake) lacks VK_NV_cooperative_matrix2, which q4gsw_coopmat2 needs for "
            "its workgroup-scope tensor-core tiles");
  EXPECT_NE(coopmat2().unavailable_reason(test::lavapipe_like(), newer_compiler()), "");
  EXPECT_EQ(coopmat2().unavailable_reason(h100_with_coopmat2(), newer_compiler()), "");
}

TEST(Coopmat2Family, EveryVariantKeepsItsAccumulatorsWithinBounds) {
  const auto variants = coopmat2().all_variants();
  for (const Knobs& k : variants) {
    const int64_t per = knob_int(k, "bm") * knob_int(k, "bn") / knob_int(k, "wg");
    EXPECT_GE(per, 16) << coopmat2().key(k);
    EXPECT_LE(per, 128) << coopmat2().key(k);
  }
  // 64 x 32 on 256 invocations would be 8 accumulators each; 64 x 64, 16.
  EXPECT_EQ(std::find(variants.begin(), variants.end(),
                      knobs("q4gsw_coopmat2[wg=256,bm=64,bn=32,bk=32,splitk=1]")),
            variants.end());
  EXPECT_NE(std::find(variants.begin(), variants.end(),
                      knobs("q4gsw_coopmat2[wg=256,bm=64,bn=64,bk=32,splitk=1]")),
            variants.end());
  EXPECT_EQ(variants.size(), 8u * 2u * 3u);  // 8 tiles of 3 x 3, 2 bk, 3 splitk
}

TEST(Coopmat2Family, RefusesGroupSizesThatAreNoPowerOfTwoAndUselessSplits) {
  const Knobs k = knobs("q4gsw_coopmat2[wg=256,bm=128,bn=128,bk=64,splitk=1]");
  const vk::DeviceInfo d = h100_with_coopmat2();
  EXPECT_TRUE(coopmat2().legality(k, q4(512, 4096, 4096, 32), d, newer_compiler()).ok);
  const Legality gs96 = coopmat2().legality(k, q4(512, 4096, 4128, 96), d, newer_compiler());
  EXPECT_FALSE(gs96.ok);
  EXPECT_NE(gs96.reason.find("gs=96 is not a power of two"), std::string::npos) << gs96.reason;

  const Knobs split = knobs("q4gsw_coopmat2[wg=256,bm=64,bn=64,bk=64,splitk=4]");
  EXPECT_TRUE(coopmat2().legality(split, q4(128, 4096, 4096, 32), d, newer_compiler()).ok);
  // 8 x 128 output tiles fill the GPU: no split.
  const Legality full = coopmat2().legality(split, q4(512, 8192, 4096, 32), d, newer_compiler());
  EXPECT_FALSE(full.ok);
  EXPECT_NE(full.reason.find("already fill the GPU"), std::string::npos) << full.reason;
  // 4 slices of K=256 in steps of 64: one step each.
  EXPECT_FALSE(coopmat2().legality(split, q4(128, 4096, 256, 32), d, newer_compiler()).ok);
}

TEST(Coopmat2Family, WorkspaceHoldsTheCountersAndEverySlicesPartials) {
  const Problem p = q4(100, 300, 4096, 32);  // 2 x 5 tiles of 64 x 64
  EXPECT_EQ(coopmat2().workspace_bytes(
                knobs("q4gsw_coopmat2[wg=256,bm=64,bn=64,bk=32,splitk=1]"), p),
            0u);
  EXPECT_EQ(coopmat2().workspace_bytes(
                knobs("q4gsw_coopmat2[wg=256,bm=64,bn=64,bk=32,splitk=4]"), p),
            (16u + 4u * 10u * 64u * 64u) * 4u);
}

TEST(Coopmat2Family, TargetsVulkan13AndItsShaderSeesTheKnobs) {
  const ShaderSpec spec =
      coopmat2().shader(knobs("q4gsw_coopmat2[wg=256,bm=64,bn=128,bk=64,splitk=2]"));
  EXPECT_EQ(spec.file, "q4gsw_coopmat2.comp");
  EXPECT_EQ(spec.vulkan_minor, 3u);
  EXPECT_EQ(spec.defines, (Defines{{"SPLIT", "1"}}));
  EXPECT_EQ(spec.specialization,
            (Specialization{{0, 256}, {1, 64}, {2, 128}, {3, 64}, {4, 2}}));
  // One module for every tile of a split, one for every tile without.
  EXPECT_EQ(coopmat2().shader(knobs("q4gsw_coopmat2[wg=256,bm=128,bn=32,bk=32,splitk=1]")).defines,
            (Defines{{"SPLIT", "0"}}));
  // The families without an extension of SPIR-V 1.6 stay on Vulkan 1.2.
  const Family& coopmat = *find_family("q4gsw_coopmat");
  EXPECT_EQ(coopmat.shader(coopmat.all_variants().front()).vulkan_minor, 2u);
}

}  // namespace
}  // namespace vktune::kernels
