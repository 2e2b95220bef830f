// rope's kernels on the test device (lavapipe here): both families, in each dtype (f16: x, the
// table and out in fp16, the reference on the same fp16 values), against the fp64 reference on
// ragged shapes (token and head counts a multiple of nothing, head dims 2, 6, 64, 80 and 128,
// decode and prefill, a table longer than the tokens' positions), then one instance moved along
// a growing table by set_length.
#include <gtest/gtest.h>

#include "tests/kernels/instance_sweep_fixture.h"

namespace vktune::kernels {
namespace {

class RopeTest : public InstanceSweepFixture, public ::testing::WithParamInterface<DType> {
 protected:
  void SetUp() override {
    InstanceSweepFixture::SetUp();
    if (GetParam() == DType::f16 && !device().info().features.storage_16bit) {
      GTEST_SKIP() << device().info().name << " lacks storageBuffer16BitAccess";
    }
  }
  Problem rope(uint32_t m, uint32_t l, uint32_t heads, uint32_t d) const {
    Problem p{Op("rope"), m, l, d, 0, false};
    p.heads = heads;
    p.dtype = GetParam();
    return p;
  }
  size_t sweep(std::string_view base_name, const Problem& p, size_t stride = 1, size_t offset = 0) {
    return InstanceSweepFixture::sweep(family_name(base_name, p.dtype), p, stride, offset);
  }
};

INSTANTIATE_TEST_SUITE_P(Dtypes, RopeTest, ::testing::Values(DType::f32, DType::f16),
                         [](const auto& instance) {
                           return std::string(dtype_name(instance.param));
                         });

TEST_P(RopeTest, PairsBaseline) {
  for (const Problem& p : {rope(1, 37, 5, 64), rope(7, 7, 3, 80), rope(3, 300, 2, 6),
                           rope(1, 1, 1, 2)}) {
    EXPECT_EQ(sweep("rope_pairs", p), 4u) << describe(p);
  }
}

TEST_P(RopeTest, Rows) {
  size_t offset = 0;
  for (const Problem& p : {rope(1, 37, 5, 64), rope(7, 7, 3, 80), rope(3, 300, 2, 6),
                           rope(13, 100, 9, 128)}) {
    // D = 6 takes only vec 1: a third of the variants.
    EXPECT_GT(sweep("rope_rows", p, spread(5), offset += 2), 0u) << describe(p);
  }
}

// One instance made for a table of 40 positions serves a decode loop's earlier ones: the
// tokens' angles follow the pushed length, and nothing past it is read.
TEST_P(RopeTest, SetLengthMovesTheTokensPositions) {
  const Problem full = rope(2, 40, 3, 64);
  const ProblemData data = make_random(full, 7);
  for (const char* base : {"rope_pairs", "rope_rows"}) {
    const Family& f = *find_family(family_name(base, full.dtype));
    KernelInstance inst = KernelInstance::create(device(), compiler(), f, f.all_variants().back(),
                                                 full, data, 1, &pipelines());
    for (uint32_t length : {40u, 9u, 2u}) {
      Problem at = full;
      at.n = length;
      ProblemData first_rows = data;
      first_rows.table.resize(uint64_t{length} * full.k);
      inst.set_length(length);
      device().run([&](vk::CommandBuffer& cb) { inst.record(cb); });
      const CheckResult c = check(inst.download_output(), reference(at, first_rows), f.tolerance(at));
      EXPECT_TRUE(c.ok) << base << " at length " << length << ": max error " << c.max_error;
    }
    EXPECT_THROW(inst.set_length(41), std::invalid_argument);
    EXPECT_THROW(inst.set_length(1), std::invalid_argument);
  }
}

}  // namespace
}  // namespace vktune::kernels
