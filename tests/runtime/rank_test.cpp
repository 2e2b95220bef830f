// rank_neighbours on hand-made neighbourhoods whose best answer is known.
#include "runtime/rank.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace vktune::runtime {
namespace {

using Entry = ShapeIndex::Entry;

ProblemQuery q4(uint32_t m, uint32_t n, uint32_t k) { return ProblemQuery{"q4gsw", "f32", m, n, k, 32}; }

// Neighbours and their ranked lists, built one list at a time.
struct Neighbourhood {
  std::vector<Entry> entries;
  std::vector<double> distances;
  std::vector<RankedVariant> variants;
  std::vector<Constraints> constraints = std::vector<Constraints>(10);
  std::vector<kernels::OutputTile> tiles = std::vector<kernels::OutputTile>(10);
  std::vector<uint32_t> workgroup_sizes = std::vector<uint32_t>(10, 256);
  uint32_t compute_units = 0;
  std::vector<uint32_t> variant_of;  // by kernel; empty: each kernel a variant of its own
  std::vector<ShapeIndex::Nearest> nearest;
  RankedLists lists;  // what pick() ranked: its answer points into it

  // One neighbour at `distance` of shape (m, n, k) with (kernel, ratio) fastest first.
  void add(uint32_t m, uint32_t n, uint32_t k, double distance,
           std::vector<std::pair<uint32_t, float>> list, Constraints c = {}) {
    Entry e{m, n, k, list.front().first, 100, c};
    e.ranked_first = static_cast<uint32_t>(variants.size());
    e.ranked_count = static_cast<uint32_t>(list.size());
    for (const auto& [kernel, ratio] : list) {
      variants.push_back({kernel, std::log(ratio)});
      constraints.at(kernel) = constraint(kernel);
    }
    entries.push_back(e);
    distances.push_back(distance);
  }
  // Kernel 9 allows only M == 1; kernel 8 only N % 4096 == 0; the others anything.
  static Constraints constraint(uint32_t kernel) {
    Constraints c;
    if (kernel == 9) c.m_max = 1;
    if (kernel == 8) c.n_multiple = 4096;
    return c;
  }
  RankedPick pick(const ProblemQuery& q) {
    nearest.clear();
    for (size_t i = 0; i < entries.size(); ++i) nearest.push_back({&entries[i], distances[i]});
    lists = RankedLists{variants, {}, 0};
    EXPECT_TRUE(index_pickable(entries, lists, variant_of));
    return rank_neighbours(nearest, lists, {constraints, tiles, workgroup_sizes}, compute_units, q);
  }
};

TEST(Rank, PrefersAVariantGoodOnEveryNeighbourToOneNeighboursWinner) {
  Neighbourhood h;
  h.add(4, 4096, 4096, 0.5, {{1, 1.0f}, {2, 1.2f}});
  h.add(16, 4096, 4096, 0.5, {{2, 1.0f}, {3, 1.1f}, {1, 3.0f}});
  const RankedPick p = h.pick(q4(8, 4096, 4096));
  ASSERT_NE(p.variant, nullptr);
  EXPECT_EQ(p.variant->kernel, 2u);  // (ln 1.2 + 0) / 2 against (0 + ln 3) / 2 for kernel 1
  EXPECT_EQ(p.measured_on, &h.entries[0]);
  EXPECT_DOUBLE_EQ(p.distance, 0.5);
}

// Kernels 1 and 2 are two stored versions of one variant (a shader source edited between the
// runs that measured the two neighbours): best on both, it wins as one variant, answered with
// the version the nearest neighbour measured. Read as two kernels, each would be absent from the
// other's list, hence twice the best there, and kernel 3, second on both, would win.
TEST(Rank, AVariantsVersionsRankAsOneVariant) {
  Neighbourhood h;
  h.add(16, 4096, 4096, 0.3, {{2, 1.0f}, {3, 1.1f}});
  h.add(4, 4096, 4096, 0.5, {{1, 1.0f}, {3, 1.1f}});
  EXPECT_EQ(h.pick(q4(8, 4096, 4096)).variant->kernel, 3u);
  h.variant_of = {0, 1, 1, 3, 4, 5, 6, 7, 8, 9};
  const RankedPick p = h.pick(q4(8, 4096, 4096));
  ASSERT_NE(p.variant, nullptr);
  EXPECT_EQ(p.variant->kernel, 2u);
  EXPECT_EQ(p.kernel, 2u);
  EXPECT_EQ(p.measured_on, &h.entries[0]);
  EXPECT_EQ(h.lists.pickable, 2u);  // the variant of kernels 1 and 2, and kernel 3
}

// The nearest neighbour lists version 1 of a variant past its head, where a winners export
// carries no SPIR-V; the other heads its list with version 2. The pick is timed on the nearest
// and served as version 2, the version a runtime can answer with.
TEST(Rank, ServesTheVersionThatHeadsAList) {
  Neighbourhood h;
  h.variant_of = {0, 1, 1, 3, 4, 5, 6, 7, 8, 9};
  h.add(16, 4096, 4096, 0.3, {{3, 1.0f}, {4, 1.01f}, {5, 1.02f}, {1, 1.03f}});
  h.add(4, 4096, 4096, 0.5, {{2, 1.0f}, {3, 1.5f}});
  const RankedPick p = h.pick(q4(8, 4096, 4096));
  ASSERT_NE(p.variant, nullptr);
  EXPECT_EQ(p.variant->kernel, 1u);
  EXPECT_EQ(p.measured_on, &h.entries[0]);
  EXPECT_EQ(p.kernel, 2u);
}

TEST(Rank, NearerNeighboursWeighMore) {
  Neighbourhood h;
  h.add(4, 4096, 4096, 0.1, {{1, 1.0f}, {2, 1.5f}});
  h.add(64, 4096, 4096, 2.0, {{2, 1.0f}, {1, 1.5f}});
  EXPECT_EQ(h.pick(q4(5, 4096, 4096)).variant->kernel, 1u);
  h.distances = {2.0, 0.1};
  EXPECT_EQ(h.pick(q4(5, 4096, 4096)).variant->kernel, 2u);
}

TEST(Rank, NeverPicksAVariantIllegalForTheQuery) {
  Neighbourhood h;
  for (const uint32_t n : {4096u, 8192u}) h.add(1, n, 4096, 0.5, {{9, 1.0f}, {1, 1.4f}});
  EXPECT_EQ(h.pick(q4(1, 6144, 4096)).variant->kernel, 9u);  // kernel 9 allows M == 1 only
  EXPECT_EQ(h.pick(q4(2, 6144, 4096)).variant->kernel, 1u);
}

TEST(Rank, AbsentWhereLegalCountsAsSlowAbsentWhereIllegalDoesNotCount) {
  Neighbourhood h;
  // Kernel 8 wins on the N = 4096 neighbour and is missing from the N = 6144 one's list.
  h.add(8, 4096, 4096, 0.5, {{8, 1.0f}, {2, 1.1f}});
  h.add(8, 6144, 4096, 0.5, {{2, 1.0f}, {3, 1.05f}});
  // There it is illegal (6144 % 4096 != 0): it is judged on the first neighbour alone and wins.
  EXPECT_EQ(h.pick(q4(8, 8192, 4096)).variant->kernel, 8u);
  // A neighbour where it was legal but not in the list counts it at twice the best: it loses.
  h.entries[1].n = 8192;
  EXPECT_EQ(h.pick(q4(8, 8192, 4096)).variant->kernel, 2u);
}

TEST(Rank, ChargesATileThePaddingItComputesOnTheQuery) {
  Neighbourhood h;
  h.tiles[1] = {128, 128};
  h.tiles[2] = {64, 128};
  h.add(128, 4096, 4096, 0.5, {{1, 1.0f}, {2, 1.2f}});
  h.add(256, 4096, 4096, 0.5, {{1, 1.0f}, {2, 1.2f}});
  // Both tiles divide M = 384: the faster one.
  EXPECT_EQ(h.pick(q4(384, 4096, 4096)).variant->kernel, 1u);
  // M = 160: 256 rows computed against 192, 1.6x against 1.2x the real work; ln 1.6 > ln 1.44.
  EXPECT_EQ(h.pick(q4(160, 4096, 4096)).variant->kernel, 2u);
  // Without tiles (a family this runtime does not know) the times count as measured.
  h.tiles[1] = h.tiles[2] = {};
  EXPECT_EQ(h.pick(q4(160, 4096, 4096)).variant->kernel, 1u);
}

// Attention's tiles pad the query rows of a KV head (OpDescriptor::output_grid), not M: kernel 1's
// band of 16 rows ran best at 4 tokens of 4 query heads a KV head, which fill it; at one query
// head a KV head the same 4 tokens fill a quarter of it, where kernel 2's blocks of 4 rows pad
// nothing: ln 4 against ln 1.5.
TEST(Rank, ChargesAnAttentionTileThePaddingOfItsQueryRows) {
  Neighbourhood h;
  h.tiles[1] = {16, 1, 16};
  h.tiles[2] = {4, 1, 16};
  const auto sdpa = [](uint32_t m, uint32_t l, uint32_t kv_heads) {
    return ProblemQuery{"sdpa", "f16", m, l, 128, 0, 32, kv_heads};
  };
  for (const uint32_t l : {8192u, 32768u}) {
    h.add(4, l, 128, 0.5, {{1, 1.0f}, {2, 1.5f}});
    h.entries.back().heads = 32;
    h.entries.back().kv_heads = 8;
  }
  EXPECT_EQ(h.pick(sdpa(4, 16384, 8)).variant->kernel, 1u);
  EXPECT_EQ(h.pick(sdpa(4, 16384, 32)).variant->kernel, 2u);
}

TEST(Rank, TakesATilesPaddingOnANeighbourOutOfItsTimeThere) {
  Neighbourhood h;
  h.tiles[1] = {128, 128};
  // Kernel 1 ran 1.3x behind kernel 2 at M = 96 and 160, where it computed 128 and 256 rows.
  h.add(96, 4096, 4096, 0.5, {{2, 1.0f}, {1, 1.3f}});
  h.add(160, 4096, 4096, 0.5, {{2, 1.0f}, {1, 1.3f}});
  // At M = 128 it computes no padding: ln 1.3 + (ln 0.75 + ln 0.625) / 2 < 0.
  EXPECT_EQ(h.pick(q4(128, 4096, 4096)).variant->kernel, 1u);
  // Where it pads as much as on the neighbours, kernel 2 stays ahead.
  EXPECT_EQ(h.pick(q4(100, 4096, 4096)).variant->kernel, 2u);
}

TEST(Rank, ChargesAGridThatFillsTheQuerysLastWaveWorse) {
  Neighbourhood h;
  h.compute_units = 4;
  h.tiles[1] = {64, 64};
  h.tiles[2] = {32, 64};  // twice the workgroups of kernel 1
  // Both fill whole waves of 4 at N = 256 and 512, and kernel 1 runs faster.
  h.add(64, 256, 4096, 0.5, {{1, 1.0f}, {2, 1.2f}});
  h.add(64, 512, 4096, 0.5, {{1, 1.0f}, {2, 1.2f}});
  // N = 320: kernel 1 fills 5 of 8 slots, kernel 2 10 of 12; ln 1.6 > ln 1.2 + ln 1.2.
  EXPECT_EQ(h.pick(q4(64, 320, 4096)).variant->kernel, 2u);
  // Workgroups of 128 invocations run three a unit (kSmallResident): kernel 2 fills 10 of 12
  // slots, more than on its neighbours (8 of 12, 16 of 24), and is charged nothing.
  h.workgroup_sizes[2] = 128;
  EXPECT_EQ(resident_workgroups(128), 3u);
  EXPECT_EQ(h.pick(q4(64, 320, 4096)).variant->kernel, 2u);
  // Without the device's compute units the times count as measured.
  h.workgroup_sizes[2] = 256;
  h.compute_units = 0;
  EXPECT_EQ(h.pick(q4(64, 320, 4096)).variant->kernel, 1u);
}

TEST(Rank, AGridThatFillsTheQueryBetterEarnsNoCredit) {
  Neighbourhood h;
  h.compute_units = 4;
  h.tiles[1] = {64, 64};
  // Kernel 1 ran 1.3x behind kernel 2 at N = 320 and 576, where it filled 5 and 9 of 8 and 12
  // slots; at N = 256 it fills them all, but that is no evidence it would catch up.
  h.add(64, 320, 4096, 0.5, {{2, 1.0f}, {1, 1.3f}});
  h.add(64, 576, 4096, 0.5, {{2, 1.0f}, {1, 1.3f}});
  EXPECT_EQ(h.pick(q4(64, 256, 4096)).variant->kernel, 2u);
  EXPECT_DOUBLE_EQ(grid_fill(5, 4), 5.0 / 8.0);
  EXPECT_EQ(grid_fill(8, 4), 1.0);
  EXPECT_EQ(grid_fill(5, 0), 1.0);
}

TEST(Rank, WinnersAloneAreTooLittleToRank) {
  Neighbourhood h;
  h.add(4, 4096, 4096, 0.5, {{1, 1.0f}});
  h.add(16, 4096, 4096, 0.7, {{2, 1.0f}, {1, 1.2f}});
  EXPECT_EQ(h.pick(q4(8, 4096, 4096)).variant, nullptr);
  h.add(32, 4096, 4096, 0.9, {{2, 1.0f}, {1, 1.3f}});
  EXPECT_NE(h.pick(q4(8, 4096, 4096)).variant, nullptr);
}

}  // namespace
}  // namespace vktune::runtime
