// q4gsw_gemv_i8dot and its packed_s16 twin on the device (lavapipe here, which has
// shaderIntegerDotProduct through Vulkan 1.3) against the fp64 reference, in both dtypes, on
// random shapes with ragged N, K over several quantisation chunks, and M up to 8. Built with
// Debian 12's shaderc, which rejects GL_EXT_integer_dot_product, the modules are the prebuilt
// ones (kernels/vk/prebuilt_spirv.h); on a device without the feature the tests skip, saying so.
#include <gtest/gtest.h>

#include <random>

#include "kernels/vk/compiler_probe.h"
#include "tests/kernels/instance_sweep_fixture.h"

namespace vktune::kernels {
namespace {

const Family& i8dot(DType dtype) { return *find_family(family_name("q4gsw_gemv_i8dot", dtype)); }

class GemvI8DotTest : public InstanceSweepFixture, public ::testing::WithParamInterface<DType> {
 protected:
  void SetUp() override {
    const std::string reason =
        i8dot(GetParam()).unavailable_reason(device().info(), linked_compiler_support());
    if (!reason.empty()) GTEST_SKIP() << reason;
  }
  size_t sweep(Problem p, size_t stride, size_t offset, const char* family = "q4gsw_gemv_i8dot") {
    p.dtype = GetParam();
    return InstanceSweepFixture::sweep(family_name(family, p.dtype), p, stride, offset);
  }
};

INSTANTIATE_TEST_SUITE_P(Dtypes, GemvI8DotTest, ::testing::Values(DType::f32, DType::f16),
                         [](const auto& instance) {
                           return std::string(dtype_name(instance.param));
                         });

Problem q4(uint32_t m, uint32_t n, uint32_t k, uint32_t gs, bool bias) {
  return {Op("q4gsw"), m, n, k, gs, bias};
}

// Random shapes the family accepts: M in 1..8, N in 1..300 (a multiple of no tile), K a
// multiple of 32 up to 2048, gs 32, 64 or 128 where it divides K; the seed is fixed.
std::vector<Problem> random_shapes(size_t count) {
  std::mt19937 rng(2025);
  std::vector<Problem> shapes;
  while (shapes.size() < count) {
    const uint32_t m = 1 + rng() % 8, n = 1 + rng() % 300, blocks = 1 + rng() % 64;
    const uint32_t gs = 32u << (rng() % 3);
    if ((blocks * 32) % gs != 0) continue;
    shapes.push_back(q4(m, n, blocks * 32, gs, rng() % 2 == 0));
  }
  return shapes;
}

TEST_P(GemvI8DotTest, RandomRaggedShapes) {
  size_t offset = 0;
  for (const Problem& p : random_shapes(6)) {
    EXPECT_GT(sweep(p, spread(7), offset += 3), 0u) << describe(p);
  }
}

// The packed_s16 layout: the same random shapes (ragged N against the 8-wide tiles, one to
// four blocks per scale group), and a K over several chunks at gs 128.
TEST_P(GemvI8DotTest, PackedS16RaggedShapes) {
  size_t offset = 1;
  for (const Problem& p : random_shapes(6)) {
    EXPECT_GT(sweep(p, spread(7), offset += 3, "q4gsw_gemv_i8dot_s16"), 0u) << describe(p);
  }
  EXPECT_GT(sweep(q4(3, 45, 9600, 128, true), spread(5), 2, "q4gsw_gemv_i8dot_s16"), 0u);
}

// K split across workgroups as well: slices of 2-16 over ragged K (a slice's blocks end
// mid-chunk, the last slice shorter), both layouts; every variant runs twice, so a counter left
// non-zero by the first dispatch fails the second. The random shapes with K of 1024 or more:
// below that few variants have two k-steps a slice.
TEST_P(GemvI8DotTest, SplitKRaggedShapes) {
  size_t offset = 2;
  for (const Problem& p : random_shapes(12)) {
    if (p.k < 1024) continue;
    EXPECT_GT(sweep(p, spread(11), offset += 3, "q4gsw_gemv_i8dot_splitk"), 0u) << describe(p);
  }
  EXPECT_GT(sweep(q4(1, 77, 9600, 32, true), spread(7), 1, "q4gsw_gemv_i8dot_splitk_s16"), 0u);
  EXPECT_GT(sweep(q4(5, 300, 2080, 32, false), spread(7), 4, "q4gsw_gemv_i8dot_splitk_s16"), 0u);
}

// K = 9600: 300 blocks, more than one chunk of quantised x for every variant with fewer than
// 300 blocks a chunk, the last one partial.
TEST_P(GemvI8DotTest, LongKOverSeveralChunks) {
  EXPECT_GT(sweep(q4(1, 77, 9600, 32, true), spread(5), 1), 0u);
  EXPECT_GT(sweep(q4(6, 45, 4096, 128, false), spread(5), 2), 0u);
}

// The gate passes for the int8 rounding the tolerance allows, and only for it: the same output
// misses the fp32 tolerance (so x really is rounded to int8, and a family computing in fp32
// would not need this bound).
TEST_P(GemvI8DotTest, ErrorIsTheInt8RoundingOfX) {
  Problem p = q4(1, 256, 2048, 32, true);
  p.dtype = GetParam();
  const Family& f = i8dot(p.dtype);
  const Knobs k = parse_key(f.name() + "[wg=128,ksplit=2,npl=1,unroll=2,mmax=1]").knobs;
  const ProblemData data = make_random(p, 7);
  const Reference ref = reference(p, data);
  KernelInstance inst =
      KernelInstance::create(device(), compiler(), f, k, p, data, 1, &pipelines());
  device().run([&](vk::CommandBuffer& cb) { inst.record(cb); });
  const std::vector<float> out = inst.download_output();
  const CheckResult c = check(out, ref, f.tolerance(p));
  EXPECT_TRUE(c.ok) << "max error " << c.max_error << " x bound, tolerance " << f.tolerance(p);
  std::printf("%s: max error %.3g of the bound, %.2f of the tolerance\n", f.name().c_str(),
              c.max_error, c.max_error / f.tolerance(p));
  EXPECT_FALSE(check(out, ref, fp32_tolerance(p)).ok) << "no int8 rounding visible";
}

}  // namespace
}  // namespace vktune::kernels
