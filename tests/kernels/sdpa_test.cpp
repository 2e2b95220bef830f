// sdpa's kernels on the test device (lavapipe here): every family, in each dtype (f16: q, the
// caches and out in fp16, the reference on the same fp16 values), against the fp64 reference
// on ragged shapes (L a multiple of nothing, head dims 64, 128, 80 and 42, GQA ratios 1, 4 and
// 8, decode and causal prefill, more slices than positions, workgroups serving 1 to 8 query
// heads of a KV head's group), and a cache longer than L.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "kernels/vk/problem_buffers.h"
#include "tests/kernels/instance_sweep_fixture.h"
#include "tests/kernels/sdpa_problem.h"

namespace vktune::kernels {
namespace {

// The sweeps, once per dtype: the _f16 instance of each family on the same shapes.
class SdpaTest : public InstanceSweepFixture, public ::testing::WithParamInterface<DType> {
 protected:
  void SetUp() override {
    InstanceSweepFixture::SetUp();
    if (GetParam() == DType::f16 && !device().info().features.storage_16bit) {
      GTEST_SKIP() << device().info().name << " lacks storageBuffer16BitAccess: no f16 variant "
                   << "is legal (tests/kernels/sdpa_problem_test.cpp checks the reason)";
    }
  }
  size_t sweep(std::string_view base_name, Problem p, size_t stride = 1, size_t offset = 0) {
    p.dtype = GetParam();
    return InstanceSweepFixture::sweep(family_name(base_name, p.dtype), p, stride, offset);
  }
};

INSTANTIATE_TEST_SUITE_P(Dtypes, SdpaTest, ::testing::Values(DType::f32, DType::f16),
                         [](const auto& instance) {
                           return std::string(dtype_name(instance.param));
                         });

Problem sdpa(uint32_t m, uint32_t l, uint32_t heads, uint32_t kv_heads, uint32_t d) {
  return test::sdpa_problem(m, l, heads, kv_heads, d);
}

const Problem kShapes[] = {
    sdpa(1, 37, 4, 1, 64),   sdpa(1, 300, 8, 1, 128), sdpa(1, 77, 2, 2, 80),
    sdpa(5, 37, 4, 4, 64),   sdpa(3, 3, 8, 2, 80),    sdpa(7, 130, 8, 1, 128),
    sdpa(2, 50, 2, 1, 42),
};

TEST_P(SdpaTest, NaiveBaseline) {
  for (const Problem& p : kShapes) EXPECT_EQ(sweep("sdpa_naive", p), 4u) << describe(p);
}

TEST_P(SdpaTest, Fused) {
  size_t offset = 0;
  for (const Problem& p : kShapes) {
    // D = 42 takes only the scalar half of the variants.
    EXPECT_GT(sweep("sdpa_fused", p, spread(5), offset += 2), 0u) << describe(p);
  }
}

TEST_P(SdpaTest, Split) {
  size_t offset = 0;
  for (const Problem& p : kShapes) {
    EXPECT_GT(sweep("sdpa_split", p, spread(17), offset += 3), 0u) << describe(p);
  }
}

// A split variant counts its workgroups' arrivals in its workspace and leaves the counters at
// zero for its next dispatch. Sharing the workspace with a variant of other head groups (as the
// variants of a tuner's batch do) breaks that: the other's states sit where this one's counters
// are, its workgroups miscount and rows stay unwritten; record_workspace_reset restores it.
TEST_P(SdpaTest, SplitVariantsSharingAWorkspaceNeedItsReset) {
  Problem p = sdpa(1, 300, 8, 1, 128);
  p.dtype = GetParam();
  const Family& f = *find_family(family_name("sdpa_split", p.dtype));
  auto pick = [&](int64_t qpg) {
    for (const Knobs& k : f.all_variants()) {
      if (knob_int(k, "qpg") == qpg && knob_int(k, "slices") == 4 &&
          f.legality(k, p, device().info())) {
        return k;
      }
    }
    ADD_FAILURE() << "no legal sdpa_split variant with qpg " << qpg;
    return Knobs{};
  };
  const Knobs one_group = pick(8), eight_groups = pick(1);
  ASSERT_FALSE(HasFailure());
  const ProblemData data = make_random(p, 11);
  const Reference ref = reference(p, data);
  const auto inputs = ProblemBuffers::create(device(), p, data, Layout::none, 1);
  vk::Buffer workspace = padded_buffer(
      device(), std::max(f.workspace_bytes(one_group, p), f.workspace_bytes(eight_groups, p)));
  device().run([&](vk::CommandBuffer& cb) { cb.fill(workspace, 0, VK_WHOLE_SIZE); });
  KernelInstance::ExternalBuffers external;
  external.workspace = &workspace;
  const KernelInstance a =
      KernelInstance::create(device(), compiler(), f, one_group, p, inputs, external, &pipelines());
  KernelInstance b = KernelInstance::create(device(), compiler(), f, eight_groups, p, inputs,
                                            external, &pipelines());
  auto b_after_a = [&](bool reset) {
    b.reset_output();
    device().run([&](vk::CommandBuffer& cb) {
      a.record(cb);
      cb.barrier();
      if (reset) {
        b.record_workspace_reset(cb);
        cb.barrier();
      }
      b.record(cb);
    });
    return check(b.download_output(), ref, f.tolerance(p)).ok;
  };
  EXPECT_FALSE(b_after_a(false)) << "a's states no longer land on b's counters: rework the test";
  EXPECT_TRUE(b_after_a(true));
}

// Shapes drawn at random (a fixed seed, so a failure reproduces): ragged L and head dims, GQA
// ratios 1 to 8, decode and prefill; one legal variant of each family per shape, drawn too.
TEST_P(SdpaTest, RandomShapes) {
  std::mt19937 rng(20240518u + static_cast<unsigned>(GetParam()));
  auto pick = [&](uint32_t lo, uint32_t hi) {
    return std::uniform_int_distribution<uint32_t>(lo, hi)(rng);
  };
  for (int i = 0; i < 4; ++i) {
    const uint32_t m = pick(0, 1) ? 1 : pick(2, 6);
    const uint32_t kv = pick(1, 2), ratio = 1u << pick(0, 3);
    const uint32_t d = 2 * pick(4, 72);  // 8..144, a multiple of 4 about half the time
    Problem p = sdpa(m, pick(m, 700), kv * ratio, kv, d);
    p.dtype = GetParam();
    const ProblemData data = make_random(p, i + 1);
    const Reference ref = reference(p, data);
    for (const char* base : {"sdpa_naive", "sdpa_fused", "sdpa_split"}) {
      const Family& f = *find_family(family_name(base, p.dtype));
      const std::vector<Knobs> legal = legal_variants(f, p);
      ASSERT_FALSE(legal.empty()) << f.name() << " on " << describe(p);
      EXPECT_TRUE(run_and_check(f, legal[pick(0, uint32_t(legal.size()) - 1)], p, data, ref));
    }
  }
}

// An engine binds its whole cache, of Lmax positions, and pushes the current L: the kernels
// read only the first L, so the same instance's result must not depend on what lies beyond.
TEST_P(SdpaTest, ReadsOnlyTheFirstLPositionsOfALongerCache) {
  Problem p = sdpa(2, 40, 8, 1, 64);  // GQA 8: the online variants' qpg=8 is legal
  p.dtype = GetParam();
  Problem longer = p;
  longer.n = 64;
  const ProblemData data = make_random(p, 3);
  ProblemData padded = make_random(longer, 4);  // positions past 40 hold other values
  std::copy(data.keys.begin(), data.keys.end(), padded.keys.begin());
  std::copy(data.values.begin(), data.values.end(), padded.values.begin());
  padded.x = data.x;
  const Reference ref = reference(p, data);
  for (const char* base : {"sdpa_naive", "sdpa_fused", "sdpa_split"}) {
    const std::string name = family_name(base, p.dtype);
    const Family& f = *find_family(name);
    const Knobs knobs = f.all_variants().back();
    KernelInstance inst = KernelInstance::create(device(), compiler(), f, knobs, longer, padded,
                                                 1, &pipelines());
    // The same pipeline and bindings with L = 40 pushed: what the engine's graph does.
    inst.set_length(p.n);
    device().run([&](vk::CommandBuffer& cb) { inst.record(cb); });
    const CheckResult c = check(inst.download_output(), ref, f.tolerance(p));
    EXPECT_TRUE(c.ok) << name << ": max error " << c.max_error;
  }
}

}  // namespace
}  // namespace vktune::kernels
