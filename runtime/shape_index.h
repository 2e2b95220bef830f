// The tuned problems of one (device, op, dtype, group size) with their winners, indexed for
// the lookups select() makes: the exact shape, the nearest shapes by log-distance (to rank
// their variants), and the nearest shape whose winner is legal for the query.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "runtime/selection.h"

namespace vktune::runtime {

// Immutable after construction; lookups are noexcept, allocation-free and safe from any number
// of threads at once.
class ShapeIndex {
 public:
  // One tuned problem and its winner.
  struct Entry {
    uint32_t m = 0, n = 0, k = 0;
    uint32_t kernel = 0;  // the owner's kernel index, carried through untouched
    double median_ns = 0;
    Constraints constraints;  // the winner's, inline: no indirection on the search path
    // The problem's fastest variants, as a slice of its owner's list (runtime/rank.h).
    uint32_t ranked_first = 0, ranked_count = 0;
    // The problem's group size and head counts (sdpa): where its variants' legality is asked.
    uint32_t group_size = 0, heads = 0, kv_heads = 0;
  };

  struct Nearest {
    const Entry* entry = nullptr;  // nullptr when no entry is legal for the query
    double distance = 0;           // between the two shapes' points (below)
  };

  // Where a shape sits in the index's space: (ln M, w ln N, w ln K). For the linears (and
  // rms_norm's width) w = kWeightAxisScale: a step in N or K counts twice one in M, since a hidden
  // problem's own N and K at half or twice its M are better evidence than shapes at its M with N
  // and K 1.4x off (`vktune evaluate`, docs/evaluate.md). Attention's N is the context length
  // and K the head dim, which weigh half its M (sdpa's OpDescriptor::shape_axis_scale): which
  // workgroups an attention variant launches, and so where it leaves the GPU's last wave part
  // empty, follows M (M x heads / qpg x slices), not L or D. Weighed twice they took the
  // leave-one-out regret of the H100's attention problems from 0.5% / 6.8% / 14.7% (median /
  // p90 / max) to 1.0% / 11.6% / 41.6%; with M between the tuned ones in the database as well
  // (393 problems), half instead of once, with kOtherHeadsScale 0.5, takes the mean
  // ln(1 + regret) from 4.08% to 2.86% (docs/evaluate.md).
  static constexpr double kWeightAxisScale = 2;
  // The op's scale (kernels/op.h), kWeightAxisScale for an op the catalogue does not know.
  static double axis_scale(std::string_view op) noexcept;
  static std::array<double, 3> point(uint32_t m, uint32_t n, uint32_t k,
                                     double scale = kWeightAxisScale) noexcept;

  ShapeIndex() = default;
  // Entries in any order, their points at `scale` (axis_scale of their op). Of entries with the
  // same (M, N, K), lookups see the first.
  explicit ShapeIndex(std::vector<Entry> entries, double scale = kWeightAxisScale);

  // The entry with exactly q's (M, N, K), legal or not; nullptr when there is none.
  const Entry* exact(const ProblemQuery& q) const noexcept;

  // The legal entry nearest to q, where log_q = point(q's M, N, K). Ties go to the
  // smallest (M, N, K), so the answer never depends on how the index was built.
  Nearest nearest(const ProblemQuery& q, const std::array<double, 3>& log_q) const noexcept;

  // The most neighbours nearest_k finds.
  static constexpr size_t kMaxNeighbours = 8;
  // Fills `out` (at most kMaxNeighbours long) with the entries nearest to log_q, legal or not,
  // nearest first, ties to the smallest (M, N, K); returns how many it found.
  size_t nearest_k(const std::array<double, 3>& log_q, std::span<Nearest> out) const noexcept;

  size_t size() const noexcept { return entries_.size(); }

 private:
  struct Best;
  struct TreePoint {
    std::array<double, 3> c;
    uint32_t entry;
  };
  void build(size_t node, size_t lo, size_t hi, std::vector<TreePoint>& points);
  void search(size_t node, size_t lo, size_t hi, const std::array<double, 3>& log_q,
              std::array<double, 3>& offset, double cell_d2, Best& best) const noexcept;

  std::vector<Entry> entries_;  // sorted by (M, N, K): exact hits by binary search
  // A k-d tree over the entries' points with up to kLeafSize points per leaf, stored as arrays
  // in tree order (leaves are contiguous runs of them). Node i (root 1) splits its range
  // [lo, hi) at mid = lo + (hi - lo) / 2 on axis_[i] at split_[i]; its children are 2i, 2i+1.
  std::vector<std::array<double, 3>> point_;  // point() of each entry, tree order
  std::vector<uint32_t> entry_;               // tree order -> index into entries_
  std::vector<double> split_;
  std::vector<uint8_t> axis_;
};

}  // namespace vktune::runtime
