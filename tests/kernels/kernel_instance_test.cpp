// Every legal variant of every family on the device (lavapipe here), in every dtype, on random
// never-zero inputs with the output poisoned with NaN, against the fp64 reference with
// per-output bounds.
#include "kernels/vk/kernel_instance.h"

#include <gtest/gtest.h>

#include <cmath>
#include <optional>

#include "kernels/families/q4gsw_layout.h"
#include "tests/kernels/instance_sweep_fixture.h"

namespace vktune::kernels {
namespace {

using KernelInstanceTest = InstanceSweepFixture;

// The sweeps, once per dtype: the f16 instance of each family on the same shapes.
class KernelVariantsTest : public KernelInstanceTest, public ::testing::WithParamInterface<DType> {
 protected:
  void SetUp() override {
    KernelInstanceTest::SetUp();
    if (GetParam() == DType::f16 && !device().info().features.storage_16bit) {
      GTEST_SKIP() << device().info().name << " lacks storageBuffer16BitAccess: no f16 variant "
                   << "is legal (tests/kernels/family_test.cpp checks the reason)";
    }
  }
  size_t sweep(std::string_view base_name, Problem p, size_t stride = 1, size_t offset = 0,
               std::optional<Layout> only = std::nullopt) {
    p.dtype = GetParam();
    return KernelInstanceTest::sweep(family_name(base_name, p.dtype), p, stride, offset, only);
  }
};

INSTANTIATE_TEST_SUITE_P(Dtypes, KernelVariantsTest, ::testing::Values(DType::f32, DType::f16),
                         [](const auto& instance) {
                           return std::string(dtype_name(instance.param));
                         });

Problem q4(uint32_t m, uint32_t n, uint32_t k, uint32_t gs, bool bias) {
  return {Op("q4gsw"), m, n, k, gs, bias};
}

// Small shapes: N is a multiple of no tile, K of 64 and 96 with every legal group size.
const Problem kSmall[] = {
    q4(1, 37, 64, 32, true), q4(3, 100, 96, 32, false), q4(4, 37, 64, 64, false),
    q4(5, 100, 96, 96, true), q4(33, 37, 64, 32, true), q4(2, 37, 256, 128, true),
};

TEST_P(KernelVariantsTest, Naive) {
  for (const Problem& p : kSmall) EXPECT_EQ(sweep("q4gsw_naive", p), 4u) << describe(p);
  // Only the naive kernel takes K and group sizes that are not multiples of 8.
  EXPECT_EQ(sweep("q4gsw_naive", q4(3, 5, 10, 2, true)), 4u);
  EXPECT_EQ(sweep("q4gsw_naive", q4(1, 100, 2080, 2080, false)), 4u);
}

TEST_P(KernelVariantsTest, Tiled) {
  size_t offset = 0;
  for (const Problem& p : kSmall) {
    EXPECT_GT(sweep("q4gsw_tiled", p, spread(19), offset += 5), sampling() ? 3u : 300u)
        << describe(p);
  }
}

TEST_P(KernelVariantsTest, TiledLongK) {
  EXPECT_GT(sweep("q4gsw_tiled", q4(5, 100, 2080, 32, true), spread(37), 5), 2u);
  EXPECT_GT(sweep("q4gsw_tiled", q4(33, 37, 2080, 2080, false), spread(41), 20), 2u);
}

TEST_P(KernelVariantsTest, Gemv) {
  size_t offset = 0;
  for (const Problem& p : {kSmall[0], kSmall[1], kSmall[2], kSmall[3], kSmall[5],
                           q4(8, 37, 96, 32, true), q4(7, 100, 64, 64, false)}) {
    EXPECT_GT(sweep("q4gsw_gemv", p, spread(5), offset += 1), sampling() ? 3u : 20u)
        << describe(p);
  }
  EXPECT_EQ(sweep("q4gsw_gemv", kSmall[4]), 0u);  // M = 33 > 8: nothing legal
}

// The fp16-scale layout on its own (the sweeps above sample it with the others): ragged N,
// one to four blocks per group, M in 1..8, with and without bias.
TEST_P(KernelVariantsTest, GemvPackedS16) {
  size_t offset = 0;
  for (const Problem& p : {q4(1, 37, 64, 32, true), q4(3, 100, 256, 128, false),
                           q4(8, 13, 192, 64, true), q4(1, 9, 2048, 32, false)}) {
    EXPECT_GT(sweep("q4gsw_gemv", p, spread(3), offset += 1, Layout::packed_s16),
              sampling() ? 3u : 20u)
        << describe(p);
  }
  // gs = 16 holds no whole block: no packed_s16 variant is legal.
  EXPECT_EQ(sweep("q4gsw_gemv", q4(1, 37, 64, 16, true), 1, 0, Layout::packed_s16), 0u);
}

TEST_P(KernelVariantsTest, GemvLongK) {
  EXPECT_GT(sweep("q4gsw_gemv", q4(1, 100, 2080, 32, true), spread(7), 3), 3u);
  EXPECT_GT(sweep("q4gsw_gemv", q4(5, 37, 2080, 2080, false), spread(9), 8), 3u);
}

TEST_P(KernelVariantsTest, CoopmatIsNeverLegalWithoutCooperativeMatrix) {
  if (device().info().features.coopmat_nv) {
    for (const Problem& p : {kSmall[4], kSmall[1], q4(64, 128, 256, 32, true)}) {
      EXPECT_GT(sweep("q4gsw_coopmat", p), 0u) << describe(p);
    }
    // Split-K: ragged M and N, K with a short last slice, bias added once; every 7th variant.
    size_t offset = 0;
    for (const Problem& p : {q4(33, 37, 1024, 32, true), q4(64, 200, 2080, 32, false),
                             q4(130, 96, 512, 128, true)}) {
      EXPECT_GT(sweep("q4gsw_coopmat_splitk", p, 7, offset += 2), 0u) << describe(p);
    }
  } else {
    EXPECT_EQ(sweep("q4gsw_coopmat", kSmall[4]), 0u);
    EXPECT_EQ(sweep("q4gsw_coopmat_splitk", q4(64, 200, 2080, 32, false)), 0u);
  }
}

TEST_P(KernelVariantsTest, RmsNorm) {
  EXPECT_EQ(sweep("rms_norm", {Op("rms_norm"), 3, 100, 0, 0, false}), 10u);
  EXPECT_EQ(sweep("rms_norm", {Op("rms_norm"), 2, 37, 37, 0, false}), 5u);  // vec4 illegal
  EXPECT_EQ(sweep("rms_norm", {Op("rms_norm"), 5, 1024, 0, 0, false, 1e-3f}), 10u);
}

TEST_F(KernelInstanceTest, PackedMatchesRawAndReference) {
  const Family& tiled = *find_family("q4gsw_tiled");
  const Problem p = q4(5, 100, 96, 32, true);
  const ProblemData data = make_random(p, 5);
  const Reference ref = reference(p, data);
  std::vector<std::vector<float>> outs;
  for (const char* key : {"q4gsw_tiled[layout=raw,tm=2,tn=2,wg=64,bk=0]",
                          "q4gsw_tiled[layout=packed,tm=2,tn=2,wg=64,bk=0]"}) {
    KernelInstance inst = KernelInstance::create(device(), compiler(), tiled,
                                                 parse_key(key).knobs, p, data, 1, &pipelines());
    device().run([&](vk::CommandBuffer& cb) { inst.record(cb); });
    outs.push_back(inst.download_output());
    EXPECT_TRUE(check(outs.back(), ref, tiled.tolerance(p)).ok) << key;
  }
  EXPECT_EQ(outs[0], outs[1]);  // same arithmetic in the same order: bit-identical
}

TEST_F(KernelInstanceTest, WeightCopiesResetAndAccounting) {
  const Family& gemv = *find_family("q4gsw_gemv");
  const Problem p = q4(2, 100, 96, 32, true);
  const ProblemData data = make_random(p, 9);
  const Reference ref = reference(p, data);
  KernelInstance inst = KernelInstance::create(
      device(), compiler(), gemv,
      parse_key("q4gsw_gemv[layout=packed,wg=64,rows=2,load=u32x4,reduce=shared]").knobs, p, data,
      3, &pipelines());
  EXPECT_EQ(inst.weight_copies(), 3u);
  EXPECT_EQ(inst.bytes_moved(),
            packed_weight_bytes(100, 96) + 3 * 100 * 4 + 2 * 96 * 4 + 2 * 100 * 4 + 100 * 4);
  EXPECT_DOUBLE_EQ(inst.flops(), 2.0 * 2 * 100 * 96);
  for (uint32_t c = 0; c < 3; ++c) {
    inst.reset_output();
    EXPECT_FALSE(check(inst.download_output(), ref, 1.0).ok);  // poisoned again
    device().run([&](vk::CommandBuffer& cb) { inst.record(cb, c); });
    EXPECT_TRUE(check(inst.download_output(), ref, gemv.tolerance(p)).ok) << "copy " << c;
  }
}

TEST_F(KernelInstanceTest, IllegalVariantThrowsWithTheReason) {
  const Family& gemv = *find_family("q4gsw_gemv");
  const Problem p = q4(9, 100, 96, 32, false);
  const ProblemData data = make_random(p, 1);
  try {
    KernelInstance::create(device(), compiler(), gemv,
                           parse_key("q4gsw_gemv[layout=raw,wg=64,rows=1,load=u32,reduce=shared]")
                               .knobs,
                           p, data);
    ADD_FAILURE() << "no exception";
  } catch (const IllegalVariant& e) {
    EXPECT_NE(std::string(e.what()).find("M=9 is above this variant's m_max=8"),
              std::string::npos)
        << e.what();
  }
  const Problem odd = q4(1, 8, 95, 5, false);
  EXPECT_THROW(KernelInstance::create(device(), compiler(), gemv,
                                      gemv.all_variants().front(), odd, data),
               InvalidProblem);
}

// q4gsw_gemv_fast on the shapes of the gemv tests: M in 1..8 (each M selects one mmax),
// N not a multiple of any tile, K with a partial unroll block, every legal group size.
TEST_P(KernelVariantsTest, GemvFast) {
  size_t offset = 0;
  for (const Problem& p :
       {q4(1, 37, 64, 32, true), q4(3, 100, 96, 32, false), q4(5, 100, 96, 96, true),
        q4(8, 37, 96, 32, true), q4(1, 100, 256, 64, false), q4(3, 37, 256, 128, true),
        q4(5, 37, 64, 64, false), q4(8, 100, 256, 256, false), q4(2, 37, 256, 128, true),
        q4(4, 37, 64, 64, false)}) {
    // Only mmax = 8 (27 or 36 variants here) serves M > 4: sample it more densely.
    EXPECT_GT(sweep("q4gsw_gemv_fast", p, spread(p.m > 4 ? 5 : 17), offset += 3),
              sampling() ? 2u : 30u)
        << describe(p);
  }
  EXPECT_EQ(sweep("q4gsw_gemv_fast", kSmall[4]), 0u);                // M = 33 > 8
  EXPECT_EQ(sweep("q4gsw_gemv_fast", q4(1, 37, 72, 8, true)), 0u);  // K % 32 != 0
}

TEST_P(KernelVariantsTest, GemvFastLongK) {
  EXPECT_GT(sweep("q4gsw_gemv_fast", q4(1, 100, 2080, 32, true), spread(11), 2), 3u);
  // M > 4: 36 of the variants are legal (mmax=8 only), so a denser sample.
  EXPECT_GT(sweep("q4gsw_gemv_fast", q4(5, 37, 2080, 2080, false), spread(5), 1), 3u);
  EXPECT_GT(sweep("q4gsw_gemv_fast", q4(8, 100, 2080, 160, true), spread(4), 3), 3u);
}

// The fast kernel on packed_s16: ragged N, one to four blocks per group and a partial unroll
// block, M in 1..8 (each M its own mmax), with and without bias.
TEST_P(KernelVariantsTest, GemvFastS16) {
  size_t offset = 0;
  for (const Problem& p : {q4(1, 37, 96, 32, true), q4(3, 100, 256, 128, false),
                           q4(8, 13, 192, 64, true), q4(1, 100, 2080, 32, false)}) {
    EXPECT_GT(sweep("q4gsw_gemv_fast_s16", p, spread(p.m > 4 ? 5 : 13), offset += 2),
              sampling() ? 2u : 30u)
        << describe(p);
  }
  EXPECT_EQ(sweep("q4gsw_gemv_fast_s16", q4(1, 37, 64, 16, true)), 0u);  // gs % 32 != 0
}

// The fast kernel against the built-in raw gemv and the reference, N spanning many tiles, read
// from the second of two weight copies.
TEST_F(KernelInstanceTest, GemvFastMatchesBuiltinAndReference) {
  const Problem p = q4(1, 1000, 512, 64, true);
  const ProblemData data = make_random(p, 11);
  const Reference ref = reference(p, data);
  const Family& gemv = *find_family("q4gsw_gemv");
  const Family& fast = *find_family("q4gsw_gemv_fast");
  auto run = [&](const Family& f, const std::string& key) {
    KernelInstance inst = KernelInstance::create(device(), compiler(), f, parse_key(key).knobs,
                                                 p, data, 2, &pipelines());
    device().run([&](vk::CommandBuffer& cb) { inst.record(cb, 1); });
    std::vector<float> out = inst.download_output();
    EXPECT_TRUE(check(out, ref, f.tolerance(p)).ok) << key;
    return out;
  };
  const std::vector<float> builtin =
      run(gemv, "q4gsw_gemv[layout=raw,wg=64,rows=1,load=u32,reduce=shared]");
  for (const char* key : {"q4gsw_gemv_fast[wg=64,ksplit=1,npl=1,unroll=1,mmax=1]",
                          "q4gsw_gemv_fast[wg=256,ksplit=8,npl=4,unroll=4,mmax=1]",
                          "q4gsw_gemv_fast[wg=128,ksplit=2,npl=2,unroll=2,mmax=1]"}) {
    const std::vector<float> out = run(fast, key);
    ASSERT_EQ(out.size(), builtin.size());
    for (size_t i = 0; i < out.size(); ++i) {
      ASSERT_NEAR(out[i], builtin[i], 2 * fast.tolerance(p) * ref.bounds[i]) << key << " " << i;
    }
  }
}

// More tiles than maxComputeWorkGroupCount.x: the last workgroups take a second tile.
TEST_F(KernelInstanceTest, GemvFastGridStride) {
  const Family& fast = *find_family("q4gsw_gemv_fast");
  const Knobs k = parse_key("q4gsw_gemv_fast[wg=64,ksplit=8,npl=1,unroll=1,mmax=1]").knobs;
  const uint32_t max_groups = device().info().limits.max_workgroup_count[0];
  if (!fast.legality(k, q4(1, 64, 64, 32, true), device().info()) || max_groups > (1u << 20)) {
    GTEST_SKIP() << "needs 8 lanes along n and a small maxComputeWorkGroupCount.x";
  }
  const Problem p = q4(1, max_groups * 8 + 21, 64, 32, true);
  const ProblemData data = make_random(p, 12);
  KernelInstance inst = KernelInstance::create(device(), compiler(), fast, k, p, data, 1,
                                               &pipelines());
  EXPECT_EQ(inst.groups()[0], max_groups);
  device().run([&](vk::CommandBuffer& cb) { inst.record(cb); });
  const CheckResult c = check(inst.download_output(), reference(p, data), fast.tolerance(p));
  EXPECT_TRUE(c.ok) << "max error " << c.max_error << " at output " << c.worst << ", "
                    << c.non_finite << " non-finite";
}

}  // namespace
}  // namespace vktune::kernels
