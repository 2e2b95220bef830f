// OpDescriptor::output_grid against the families' dispatches: the runtime's ranking counts a
// tiled variant's workgroups and padding over the grid (runtime/rank.h), so a tile over it must
// launch what the family's groups() launches.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "kernels/compiler_support.h"
#include "kernels/family.h"
#include "kernels/op.h"
#include "tests/kernels/fake_devices.h"
#include "tests/kernels/sdpa_problem.h"

namespace vktune::kernels {
namespace {

uint64_t launched(const std::array<uint32_t, 3>& groups) {
  return uint64_t{groups[0]} * groups[1] * groups[2];
}

OutputGrid grid(const Problem& p) {
  return op_descriptor(p.op).output_grid(p.m, p.n, p.heads, p.kv_heads);
}

TEST(OutputGrid, IsMByNButForAttentionsQueryRowsOfAKvHead) {
  const Problem q4{Op("q4gsw"), 160, 4096, 2048, 32, false};
  EXPECT_EQ(grid(q4).rows, 160u);
  EXPECT_EQ(grid(q4).cols, 4096u);
  // 4 tokens of 4 query heads a KV head: 16 rows of each of 8 KV heads.
  const Problem gqa = test::sdpa_problem(4, 8192, 32, 8, 128);
  EXPECT_EQ(grid(gqa).rows, 16u);
  EXPECT_EQ(grid(gqa).cols, 8u);
  const Problem mha = test::sdpa_problem(4, 8192, 32, 32, 128);
  EXPECT_EQ(grid(mha).rows, 4u);
  EXPECT_EQ(grid(mha).cols, 32u);
}

// Every tiled variant of every family, on problems of its op with power-of-two head groups (whose
// tiles of whole head groups hold exactly the grid's rows), launches its tile's workgroups over
// the grid wherever it is legal.
TEST(OutputGrid, ATilesWorkgroupsOverTheGridAreTheDispatchs) {
  const vk::DeviceInfo h100 = test::h100_like();
  // Legality as with the newer compiler, whichever one is linked.
  const CompilerSupport newer = CompilerSupport{}
                                    .add(GlslExtension::integer_dot_product)
                                    .add(GlslExtension::cooperative_matrix_khr)
                                    .add(GlslExtension::cooperative_matrix2_nv);
  const std::vector<Problem> problems = {
      {Op("q4gsw"), 1, 4096, 4096, 32, false},
      {Op("q4gsw"), 160, 9000, 4096, 32, false},
      {Op("q4gsw"), 512, 14336, 4096, 32, false},
      test::sdpa_problem(1, 8192, 32, 8, 128, DType::f16),
      test::sdpa_problem(4, 8192, 32, 32, 128, DType::f16),
      test::sdpa_problem(4, 32768, 32, 4, 64, DType::f16),
      test::sdpa_problem(7, 4099, 16, 8, 128, DType::f16),
      test::sdpa_problem(200, 4096, 32, 8, 128, DType::f16),
  };
  size_t compared = 0, sdpa = 0;
  for (const Family* f : families()) {
    for (const Knobs& k : f->all_variants()) {
      const OutputTile tile = f->output_tile(k);
      if (tile == OutputTile{}) continue;
      for (const Problem& base : problems) {
        Problem p = base;
        p.dtype = f->dtype();
        if (p.op != f->op() || !f->legality(k, p, h100, newer).ok) continue;
        const OutputGrid g = grid(p);
        EXPECT_EQ(launched(f->groups(k, p, h100)), tile.workgroups(g.rows, g.cols))
            << f->key(k) << " on" << op_descriptor(p.op).describe_shape(p);
        ++compared;
        sdpa += p.op == Op("sdpa") ? 1 : 0;
      }
    }
  }
  EXPECT_GT(compared, 1000u);
  EXPECT_GT(sdpa, 100u);
}

}  // namespace
}  // namespace vktune::kernels
