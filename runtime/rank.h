// The answer for a shape nobody tuned: the variants measured on the nearest tuned problems,
// ranked by how close to each problem's best they ran there (rank-normalised times), rather
// than the single nearest problem's winner copied.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "db/records.h"

#include "runtime/selection.h"
#include "runtime/shape_index.h"

namespace vktune::runtime {

// One of a tuned problem's fastest variants (db::Catalog::ranked), as the snapshot keeps it:
// 8 bytes, so a neighbour's list of 8 fills one cache line (a lookup reads six such lists, and
// scattered over a large snapshot every line read is a likely miss).
struct RankedVariant {
  uint32_t kernel = 0;  // the owner's kernel index
  float ratio = 1;      // its median over the problem's best median (1 for the winner)
};

struct RankedPick {
  const RankedVariant* variant = nullptr;           // nullptr: too little to rank
  const ShapeIndex::Entry* measured_on = nullptr;   // the nearest neighbour that measured it
  double distance = 0;                              // log-distance to measured_on
};

// Neighbours asked (ShapeIndex::nearest_k) and, of each, the fastest variants that may be
// picked. Every neighbour's whole list still counts in the scores. Chosen by leave-one-problem-
// out over the H100 database (`vktune evaluate`; docs/evaluate.md says what else was tried).
inline constexpr size_t kRankNeighbours = 6;
inline constexpr size_t kRankCandidatesPerNeighbour = db::kRankedPickable;

// Picks, among the first kRankCandidatesPerNeighbour variants of each neighbour that are legal
// for `q`, the one with the lowest score sum_j w_j r_j^2 / sum_j w_j over the neighbours j,
// where r_j is its time on j relative to j's best and w_j = 1 / (distance_j + 0.1)^2. Squaring
// the ratio makes a variant that ran badly on one neighbour lose to one that ran well on all.
// A variant missing from a neighbour's list, though legal there, counts as slower than the
// list's last entry and at least twice the best; where it is illegal, that neighbour does not
// count for it. `neighbours` are nearest first; each entry's ranked_first/ranked_count slice
// `variants`; `constraints[kernel]` is a kernel's legality. Returns no variant when fewer than
// two neighbours rank two or more variants (a database of winners only): the caller then copies
// the nearest legal winner. noexcept, allocation-free.
RankedPick rank_neighbours(std::span<const ShapeIndex::Nearest> neighbours,
                           std::span<const RankedVariant> variants,
                           std::span<const Constraints> constraints, const ProblemQuery& q) noexcept;

}  // namespace vktune::runtime
