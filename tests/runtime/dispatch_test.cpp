// The dispatch contract from the catalogue: bindings and sizes, push constants, clamped groups,
// refusals, and the CPU prepack.
#include "runtime/dispatch.h"

#include <gtest/gtest.h>

#include <cstring>
#include <numeric>

#include "kernels/families/q4gsw_layout.h"
#include "runtime/builtin.h"
#include "tests/runtime/hand_selection.h"

namespace vktune::runtime {
namespace {

constexpr std::array<uint32_t, 3> kLargeGrid{65535, 65535, 65535};

ProblemQuery q4(uint32_t m, uint32_t n, uint32_t k, uint32_t gs) {
  return {"q4gsw", "f32", m, n, k, gs};
}

Selection builtin_for(const ProblemQuery& q) {
  Selection s;
  select_builtin(q, s);
  return s;
}

Selection splitk_selection() {
  return test::hand_selection("q4gsw_coopmat_splitk",
                              "q4gsw_coopmat_splitk[bm=64,bn=128,bk=64,sg=8,buf=2,splitk=2]",
                              R"({"bm":64,"bn":128,"bk":64,"sg":8,"buf":2,"splitk":2})");
}

TEST(Dispatch, BindingsCarryEveryBuffersSizeInShaderOrder) {
  const ProblemQuery q = q4(2, 64, 256, 32);
  const DispatchPlan plan = plan_dispatch(builtin_for(q), q, kLargeGrid);
  ASSERT_TRUE(plan.ok()) << plan.error;
  ASSERT_EQ(plan.bindings.size(), 6u);
  const uint64_t expected[] = {2 * 256 * 4, 64 * 128, 8 * 64 * 4, 0, 2 * 64 * 4, 0};
  const char* names[] = {"x", "weight", "scales", "bias", "out", "workspace"};
  for (uint32_t i = 0; i < 6; ++i) {
    EXPECT_EQ(plan.bindings[i].binding, i);
    EXPECT_EQ(plan.bindings[i].name, names[i]);
    EXPECT_EQ(plan.bindings[i].bytes, expected[i]) << names[i];
    EXPECT_EQ(plan.bindings[i].written, i >= 4) << names[i];
  }
  EXPECT_EQ(plan.layout, "raw");
  EXPECT_EQ(plan.workgroup_size, 64u);
  uint32_t push[4];
  ASSERT_GE(plan.push_constants.size(), sizeof push);
  std::memcpy(push, plan.push_constants.data(), sizeof push);
  EXPECT_EQ(push[0], 2u);
  EXPECT_EQ(push[1], 64u);
  EXPECT_EQ(push[2], 256u);
  EXPECT_EQ(push[3], 32u);
  EXPECT_GE(plan.groups[0], 1u);
}

TEST(Dispatch, RmsNormHasThreeBindings) {
  const ProblemQuery q{"rms_norm", "f32", 3, 100, 100, 0};
  const DispatchPlan plan = plan_dispatch(builtin_for(q), q, kLargeGrid);
  ASSERT_TRUE(plan.ok()) << plan.error;
  ASSERT_EQ(plan.bindings.size(), 3u);
  EXPECT_EQ(plan.bindings[1].name, "w");
  EXPECT_EQ(plan.bindings[1].bytes, 400u);
  EXPECT_EQ(plan.layout, "none");
}

TEST(Dispatch, GroupsAreClampedToTheDevice) {
  const ProblemQuery q = q4(64, 4096, 256, 32);
  const DispatchPlan wide = plan_dispatch(builtin_for(q), q, kLargeGrid);
  const DispatchPlan narrow = plan_dispatch(builtin_for(q), q, {3, 1, 1});
  ASSERT_TRUE(wide.ok() && narrow.ok());
  EXPECT_GT(wide.groups[0], 3u);
  EXPECT_EQ(narrow.groups[0], 3u);  // the shaders grid-stride over the rest
}

TEST(Dispatch, SplitKNeedsAWorkspaceZeroedOnce) {
  const ProblemQuery q = q4(256, 2048, 2048, 32);
  const DispatchPlan plan = plan_dispatch(splitk_selection(), q, kLargeGrid);
  ASSERT_TRUE(plan.ok()) << plan.error;
  EXPECT_EQ(plan.bindings[5].name, "workspace");
  EXPECT_GT(plan.bindings[5].bytes, 0u);
  EXPECT_TRUE(plan.bindings[5].zero_once);
  EXPECT_EQ(plan.layout, "raw");
}

// A split whose tiles already fill the GPU is refused, as the tuner refuses to measure it: 64 x 128
// tiles, 512 at M = 256 N = 16384 (kernels::kMaxSplitTiles), 1,024 at M = 512.
TEST(Dispatch, RefusesASplitWhoseTilesFillTheGpu) {
  EXPECT_TRUE(plan_dispatch(splitk_selection(), q4(256, 16384, 2048, 32), kLargeGrid).ok());
  const DispatchPlan plan = plan_dispatch(splitk_selection(), q4(512, 16384, 2048, 32), kLargeGrid);
  EXPECT_EQ(plan.status, Status::invalid_query);
  EXPECT_NE(plan.error.find("1024 output tiles"), std::string::npos) << plan.error;
  // The split GEMV counts its workgroups' 256 outputs along N: 512 of them at N = 131072.
  const Selection gemv = test::hand_selection(
      "q4gsw_gemv_i8dot_splitk",
      "q4gsw_gemv_i8dot_splitk[wg=256,ksplit=1,npl=1,unroll=2,mmax=8,slices=2]",
      R"({"wg":256,"ksplit":1,"npl":1,"unroll":2,"mmax":8,"slices":2})");
  EXPECT_TRUE(plan_dispatch(gemv, q4(8, 131072, 4096, 32), kLargeGrid).ok());
  EXPECT_NE(plan_dispatch(gemv, q4(8, 131328, 4096, 32), kLargeGrid).error.find("513 output tiles"),
            std::string::npos);
}

TEST(Dispatch, RefusesWhatTheVariantCannotRun) {
  const Selection tiled = builtin_for(q4(4, 64, 4096, 32));
  ASSERT_TRUE(tiled.ok());
  // A shape outside the variant's constraints: the tiled kernel needs K % 8 == 0.
  DispatchPlan plan = plan_dispatch(tiled, q4(4, 64, 4100, 4), kLargeGrid);
  EXPECT_EQ(plan.status, Status::invalid_query);
  EXPECT_NE(plan.error.find("K=4100"), std::string::npos) << plan.error;
  // Another op's problem.
  plan = plan_dispatch(tiled, {"rms_norm", "f32", 4, 64, 64, 0}, kLargeGrid);
  EXPECT_NE(plan.error.find("q4gsw variant"), std::string::npos) << plan.error;
  // A family or knobs this catalogue does not know, a selection that is no answer.
  Selection unknown = tiled;
  unknown.family = "q4gsw_from_the_future";
  EXPECT_FALSE(plan_dispatch(unknown, q4(4, 64, 4096, 32), kLargeGrid).ok());
  Selection bad_knobs = tiled;
  bad_knobs.knobs_json = R"({"tm":3})";
  EXPECT_FALSE(plan_dispatch(bad_knobs, q4(4, 64, 4096, 32), kLargeGrid).ok());
  bad_knobs.knobs_json = "{not json";
  EXPECT_FALSE(plan_dispatch(bad_knobs, q4(4, 64, 4096, 32), kLargeGrid).ok());
  Selection failed;
  failed.error = "no tuned entry";
  plan = plan_dispatch(failed, q4(4, 64, 4096, 32), kLargeGrid);
  EXPECT_NE(plan.error.find("not ok"), std::string::npos) << plan.error;
  EXPECT_FALSE(plan_dispatch(tiled, q4(4, 64, 4095, 5), kLargeGrid).ok());  // invalid problem
}

// sdpa's contract: its own bindings over the caches, and a head group that must divide the query
// heads of one KV head (the constraints' head_group_multiple).
TEST(Dispatch, SdpaPlanBindsTheCachesAndChecksTheHeadGroup) {
  const Selection fused = test::hand_selection("sdpa_fused", "sdpa_fused[vec=1,keys=1,wg=32,qpg=2]",
                                               R"({"vec":1,"keys":1,"wg":32,"qpg":2})");
  // 8 query heads over 2 KV heads: 4 per group, 2 per workgroup.
  const ProblemQuery gqa{"sdpa", "f32", 1, 16, 16, 0, 8, 2};
  const DispatchPlan plan = plan_dispatch(fused, gqa, kLargeGrid);
  ASSERT_TRUE(plan.ok()) << plan.error;
  const char* names[] = {"q", "k_cache", "v_cache", "out", "workspace"};
  ASSERT_EQ(plan.bindings.size(), 5u);
  for (uint32_t i = 0; i < 5; ++i) EXPECT_EQ(plan.bindings[i].name, names[i]);
  EXPECT_EQ(plan.bindings[1].bytes, 16u * 2 * 16 * 4);  // L x kv_heads x D floats
  EXPECT_EQ(plan.groups[0], 8u / 2);                    // M x heads / qpg
  EXPECT_EQ(plan.shared_memory_bytes, 2u * (256 + 32 + 32) * 4);
  EXPECT_EQ(plan.layout, "none");
  // One query head per KV head: a workgroup of two heads would straddle two KV heads.
  const DispatchPlan mha = plan_dispatch(fused, {"sdpa", "f32", 1, 16, 16, 0, 4, 4}, kLargeGrid);
  EXPECT_EQ(mha.status, Status::invalid_query);
  EXPECT_NE(mha.error.find("not a multiple of this variant's head_group_multiple=2"),
            std::string::npos)
      << mha.error;
}

TEST(Dispatch, PrepackMatchesTheCataloguesLayouts) {
  const uint32_t n = 10, k = 96;
  std::vector<uint8_t> raw(n * k / 2);
  std::iota(raw.begin(), raw.end(), uint8_t{7});
  std::vector<uint8_t> out;
  EXPECT_EQ(prepack("raw", raw, n, k, out), "");
  EXPECT_EQ(out, raw);
  EXPECT_EQ(prepack("packed", raw, n, k, out), "");
  EXPECT_EQ(out.size(), prepacked_bytes("packed", n, k));
  EXPECT_EQ(kernels::unpack(out, n, k), raw);
  EXPECT_NE(prepack("none", raw, n, k, out), "");
  EXPECT_NE(prepack("packed", raw, n, k + 1, out), "");                    // odd K
  EXPECT_NE(prepack("packed", std::span(raw).first(5), n, k, out), "");    // wrong size
  EXPECT_EQ(prepacked_bytes("tiles", n, k), 0u);
}

TEST(Dispatch, PrepackS16CarriesTheScales) {
  const uint32_t n = 10, k = 128, gs = 64;
  std::vector<uint8_t> raw(n * k / 2);
  std::iota(raw.begin(), raw.end(), uint8_t{3});
  std::vector<float> scales(k / gs * n);
  for (size_t i = 0; i < scales.size(); ++i) scales[i] = 0.25f * static_cast<float>(i + 1);
  std::vector<uint8_t> out;
  EXPECT_EQ(prepack("packed_s16", raw, scales, n, k, gs, out), "");
  EXPECT_EQ(out.size(), prepacked_bytes("packed_s16", n, k, gs));
  const kernels::RawWeights back = kernels::unpack_s16(out, n, k, gs);
  EXPECT_EQ(back.weight, raw);
  EXPECT_EQ(back.scales, scales);  // quarters are fp16 values
  // The scales are part of it: the overload without them, a wrong count or group size refuse.
  EXPECT_NE(prepack("packed_s16", raw, n, k, out).find("scales"), std::string::npos);
  EXPECT_NE(prepack("packed_s16", raw, std::span(scales).first(3), n, k, gs, out), "");
  EXPECT_NE(prepack("packed_s16", raw, scales, n, k, 16, out), "");  // not a multiple of 32
  EXPECT_EQ(prepacked_bytes("packed_s16", n, k, 16), 0u);
  // The other layouts ignore the scales.
  EXPECT_EQ(prepack("packed", raw, scales, n, k, gs, out), "");
  EXPECT_EQ(kernels::unpack(out, n, k), raw);
}

// The dispatch plan of a packed_s16 variant binds no scales: the weight holds them.
TEST(Dispatch, PackedS16PlanHasNoScalesBytes) {
  const Selection s = test::hand_selection(
      "q4gsw_gemv", "q4gsw_gemv[layout=packed_s16,wg=64,rows=2,load=u32x4,reduce=shared]",
      R"({"layout":"packed_s16","wg":64,"rows":2,"load":"u32x4","reduce":"shared"})");
  const DispatchPlan plan = plan_dispatch(s, q4(1, 50, 256, 32), kLargeGrid);
  ASSERT_TRUE(plan.ok()) << plan.error;
  EXPECT_EQ(plan.layout, "packed_s16");
  EXPECT_EQ(plan.bindings.at(2).name, "scales");
  EXPECT_EQ(plan.bindings.at(2).bytes, 0u);
  EXPECT_EQ(plan.bindings.at(1).bytes, prepacked_bytes("packed_s16", 50, 256, 32));
  EXPECT_FALSE(plan_dispatch(s, q4(1, 50, 256, 16), kLargeGrid).ok());  // gs % 32 != 0
}

}  // namespace
}  // namespace vktune::runtime
