// sdpa's kernels on the test device (lavapipe here): every family against the fp64 reference
// on ragged shapes (L a multiple of nothing, head dims 64, 128, 80 and 42, GQA ratios 1, 4 and
// 8, decode and causal prefill, more slices than positions, workgroups serving 1 to 8 query
// heads of a KV head's group), and a cache longer than L.
#include <gtest/gtest.h>

#include "tests/kernels/instance_sweep_fixture.h"

namespace vktune::kernels {
namespace {

using SdpaTest = InstanceSweepFixture;

Problem sdpa(uint32_t m, uint32_t l, uint32_t heads, uint32_t kv_heads, uint32_t d) {
  Problem p{Op::sdpa, m, l, d, 0, false};
  p.heads = heads;
  p.kv_heads = kv_heads;
  return p;
}

const Problem kShapes[] = {
    sdpa(1, 37, 4, 1, 64),   sdpa(1, 300, 8, 1, 128), sdpa(1, 77, 2, 2, 80),
    sdpa(5, 37, 4, 4, 64),   sdpa(3, 3, 8, 2, 80),    sdpa(7, 130, 8, 1, 128),
    sdpa(2, 50, 2, 1, 42),
};

TEST_F(SdpaTest, NaiveBaseline) {
  for (const Problem& p : kShapes) EXPECT_EQ(sweep("sdpa_naive", p), 4u) << describe(p);
}

TEST_F(SdpaTest, Fused) {
  size_t offset = 0;
  for (const Problem& p : kShapes) {
    // D = 42 takes only the scalar half of the variants.
    EXPECT_GT(sweep("sdpa_fused", p, spread(5), offset += 2), 0u) << describe(p);
  }
}

TEST_F(SdpaTest, Split) {
  size_t offset = 0;
  for (const Problem& p : kShapes) {
    EXPECT_GT(sweep("sdpa_split", p, spread(17), offset += 3), 0u) << describe(p);
  }
}

// An engine binds its whole cache, of Lmax positions, and pushes the current L: the kernels
// read only the first L, so the same instance's result must not depend on what lies beyond.
TEST_F(SdpaTest, ReadsOnlyTheFirstLPositionsOfALongerCache) {
  const Problem p = sdpa(2, 40, 8, 1, 64);  // GQA 8: the online variants' qpg=8 is legal
  Problem longer = p;
  longer.n = 64;
  const ProblemData data = make_random(p, 3);
  ProblemData padded = make_random(longer, 4);  // positions past 40 hold other values
  std::copy(data.keys.begin(), data.keys.end(), padded.keys.begin());
  std::copy(data.values.begin(), data.values.end(), padded.values.begin());
  padded.x = data.x;
  const Reference ref = reference(p, data);
  for (const char* name : {"sdpa_naive", "sdpa_fused", "sdpa_split"}) {
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
