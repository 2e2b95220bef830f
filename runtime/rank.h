// The answer for a shape nobody tuned: the variants measured on the nearest tuned problems,
// ranked by how close to each problem's best they ran there (rank-normalised times), rather
// than the single nearest problem's winner copied.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "db/records.h"
#include "kernels/output_tile.h"

#include "runtime/selection.h"
#include "runtime/shape_index.h"

namespace vktune::runtime {

// One of a tuned problem's fastest variants (db::Catalog::ranked), as the snapshot keeps it:
// 8 bytes, so a neighbour's list of 8 fills one cache line (a lookup reads six such lists, and
// scattered over a large snapshot every line read is a likely miss).
struct RankedVariant {
  uint32_t kernel = 0;  // the owner's kernel index
  float log_ratio = 0;  // ln(its median over the problem's best median): 0 for the winner
};

struct RankedPick {
  const RankedVariant* variant = nullptr;           // nullptr: too little to rank
  const ShapeIndex::Entry* measured_on = nullptr;   // the nearest neighbour that measured it
  double distance = 0;                              // log-distance to measured_on
  // The kernel to serve: the version of the variant that heads a list, which a winners export
  // gives SPIR-V (db::answer_kernels); `variant` is its row on measured_on, which may name
  // another version of it.
  uint32_t kernel = 0;
};

// Neighbours asked (ShapeIndex::nearest_k) and, of each, the fastest variants that may be
// picked. Every neighbour's whole list still counts in the scores. Chosen by leave-one-problem-
// out over the H100 database (`vktune evaluate`, docs/evaluate.md): 8 where a grid of shapes
// fills the space between the presets', so more neighbours outvote one shape's odd winner (6 is
// better only while the prefill problems are the presets' few shapes).
inline constexpr size_t kRankNeighbours = 8;
inline constexpr size_t kRankCandidatesPerNeighbour = db::kRankedPickable;
// Shapes tuned at the device's other group sizes that the query's own group size lacks join those
// neighbours (runtime/snapshot.cpp), at kOtherGroupSizeScale log-distance per unit of |ln(group
// size ratio)| added in quadrature, and the nearest kMaxRankNeighbours of all rank: a group size
// moves the scales' share of the traffic, rarely which tile or grid suits a shape. The query's
// own shape at another group size is the nearest of them. Chosen by `vktune evaluate` on the H100
// database (docs/evaluate.md), with its --leave-shape-out figures beside, which no other group
// size can flatter.
inline constexpr size_t kOtherGroupSizeSlots = 2;
inline constexpr size_t kMaxRankNeighbours = kRankNeighbours + kOtherGroupSizeSlots;
inline constexpr double kOtherGroupSizeScale = 0.25;
// Attention's neighbours come from every head count the device tuned: a shape tuned at other head
// counts sits at hypot(its distance, kOtherHeadsScale * the head counts' distance)
// (runtime/snapshot.cpp), where q's M x heads rows count as rows of its heads. `vktune evaluate`
// on the H100 database, the 72 problems at six head counts tuned at 12 shapes each (median / p90
// regret, within 10%): each ranked from its own head counts alone 6.1% / 37.9%, 41; with the
// others at scale 0.5 0.4% / 5.2%, 69; 1 0.3% / 4.4%, 69; 2 0.8% / 11.1%, 64. With every head
// count tuned at the M between as well (236 problems at nine other head counts, with
// sdpa's shape_axis_scale 0.5) the nearer scale wins: 0.5 0.4% / 9.0%, 216; 1 0.7% /
// 16.0%, 200; 2 2.5% / 19.2%, 182 (docs/evaluate.md).
inline constexpr double kOtherHeadsScale = 0.5;

// A device's answer for a shape it never tuned gives way to a kin's (another device of its vendor
// and type) whose matched shape lies nearer to the query than its own by more than this
// log-distance, about a factor of two in M: a device tuned at a few shapes then borrows its kin's
// denser ones, and keeps its own where they are near. Chosen by `vktune evaluate` over the H100
// and H200 databases together (docs/results/h200.md): the H200's 195 problems,
// mean ln(1 + regret), from its own alone 2.95%; with this rule at 0.35 2.25%, at 0.7 2.22%, at
// 1.0 2.22%, at 1.5 2.95% again; the H100's 1,982 read 2.61% at every value.
inline constexpr double kKinDistance = 0.7;

// Whether `kin`, a same_vendor_type answer, replaces `own`, an answer for the device itself (the
// rule above). Snapshot::select applies it within one database, Layers::select across them.
inline bool kin_answers_instead(const Selection& own, const Selection& kin) noexcept {
  return own.shape_match != ShapeMatch::exact && kin.status == Status::ok &&
         kin.device_match == DeviceMatch::same_vendor_type &&
         kin.shape_distance + kKinDistance < own.shape_distance;
}

// A group's ranked lists as the ranking reads them. `variants` holds every entry's list (each
// entry's ranked_first/ranked_count slice it); `pick` is, per variant, its kernel's pickable id:
// variants that head some list of the group (its first kRankCandidatesPerNeighbour, the only
// ones that can be picked) are numbered 0..pickable-1, every other kernel shares id `pickable`.
// Every stored version of one variant (same family and knobs, another shader source) shares its
// id, so the ranking reads them as one variant: a source edit must not make a variant measured
// before it look absent, hence slow, beside one measured after. The ranking then finds a
// candidate's place in a list through a table indexed by these ids, instead of hashing kernel
// indices entry by entry. Built once at load by index_pickable.
struct RankedLists {
  std::vector<RankedVariant> variants;
  std::vector<uint16_t> pick;
  uint32_t pickable = 0;
};

// The most pickable variants in one group: the ranking keeps a table of that many bytes on the
// stack. A group needs more only if more distinct variants than this head its lists.
inline constexpr size_t kMaxPickable = 4095;

// Numbers the variants heading `entries`' lists in `lists` (fills pick and pickable), where
// variant_of[kernel] is the variant of each kernel index (its versions share one; empty: every
// kernel a variant of its own). Returns false, leaving `lists` unusable, when more than
// kMaxPickable variants head them or a list is longer than 65535.
bool index_pickable(std::span<const ShapeIndex::Entry> entries, RankedLists& lists,
                    std::span<const uint32_t> variant_of = {});

// What the ranking reads of each stored kernel, by kernel index: its legality, its output tile
// (the padding its edge tiles compute and the workgroups it launches, kernels/output_tile.h),
// and its workgroup size (how many workgroups one compute unit runs at once, estimated below).
struct RankKernels {
  std::span<const Constraints> constraints;
  std::span<const kernels::OutputTile> tiles;
  std::span<const uint32_t> workgroup_sizes;
};

// Workgroups of a kernel that one compute unit runs at once, as the ranking estimates them:
// kSmallResident of up to kSmallWorkgroup invocations, else one. On the H100 the tiles of 128
// invocations hold registers for 2 to 5 resident workgroups and those of 256 for 1 to 3
// (`vktune inspect`). The register file's count ranks worse on the unseen sets than a flat
// estimate (bench/unseen_regret.py, docs/evaluate.md). Of the flat ones, on the 122 linears of
// the unseen sets 2-8 (with the prefill grid's mid M in the database; median / p90, mean
// ln(1 + regret)): two 2.0% / 23.9%, 5.63%; three 1.1% / 10.2%, 3.36%; four 1.7% / 21.0%, 5.28%;
// three with two of 256 invocations 1.2% / 12.4%, 3.84%.
inline constexpr uint32_t kSmallWorkgroup = 128;
inline constexpr uint32_t kSmallResident = 3;
constexpr uint32_t resident_workgroups(uint32_t workgroup_size) noexcept {
  return workgroup_size <= kSmallWorkgroup ? kSmallResident : 1;
}

// The share of `slots` x waves that `workgroups` fill: 1 when they fill their last wave, or when
// the slots are not known (0).
double grid_fill(uint64_t workgroups, uint64_t slots) noexcept;

// Picks, among the first kRankCandidatesPerNeighbour variants of each neighbour that are legal
// for `q`, the one with the lowest score sum_j w_j ln(r_j) / sum_j w_j over the neighbours j
// (the weighted geometric mean of its ratios), where r_j is its time on j relative to j's best
// and w_j = 1 / (distance_j + 0.1)^2. Times are compared by ratio, so their logs are what
// averages: a variant 1.3x behind on one neighbour and at the best on another scores as one
// 1.14x behind on both. (A mean squared ratio weighs each variant's worst neighbour most, an
// absent one as 4, and ranks worse by the same measure.)
// A tiled variant's times carry its padding: each ratio r_j counts as r_j * u_j / u_q, where u is
// the share of its computed outputs that are real on j and on the query (OutputTile, over the
// op's OutputGrid): a 128-row tile that was best at M = 128 and M = 256 computes 256 rows at
// M = 160, a 64-row one 192; an attention tile of 16 query rows a KV head best at 4 tokens of 4
// query heads a KV head computes 16 rows for the 4 of 4 tokens at one query head a KV head
// (`vktune evaluate` on the H200's attention grid: max regret at 32 / 32 heads 23.1% -> 2.2%,
// p90 of all 75 problems 8.2% -> 6.2%).
// Where the device's compute units are known (compute_units > 0), a tiled variant whose
// workgroups fill the GPU's last wave worse on the query than on neighbour j is charged the
// difference: r_j counts as r_j * max(1, f_j / f_q), f being the share of the waves' slots
// (compute units x resident_workgroups) its workgroups fill. A grid that fills the query better
// earns no credit: with part of the GPU idle on j, each busy unit had more of the memory's
// bandwidth, so j's time did not grow with the idle share (that credit made picks worse).
// A variant missing from a neighbour's list, though legal there (at the neighbour's own group
// size), counts as slower than the list's last entry and at least twice the best; where it is
// illegal, that neighbour does not count for it. A kernel listed twice in one list counts once,
// at its first (fastest) place.
// `neighbours` are nearest first; each entry's ranked_first/ranked_count slice `lists`
// (indexed by index_pickable); `kernels` describes every kernel a list names. Returns no
// variant when fewer than two neighbours rank two or more variants (a database of winners
// only): the caller then copies the nearest legal winner. A variant's legality on a neighbour is
// asked at the neighbour's own group size and head counts. noexcept, allocation-free.
RankedPick rank_neighbours(std::span<const ShapeIndex::Nearest> neighbours, const RankedLists& lists,
                           const RankKernels& kernels, uint32_t compute_units,
                           const ProblemQuery& q) noexcept;

}  // namespace vktune::runtime
