// ShapeIndex: a sorted array for exact hits and a bucketed k-d tree for nearest hits.
#include "runtime/shape_index.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <tuple>

namespace vktune::runtime {
namespace {

// Points per leaf. A leaf is scanned linearly, which is cheaper than descending the last
// three levels of the tree node by node (lookup_bench, 10,000 points: 8 and 16 measure alike
// within noise, 4 is slower; the single-point tree this replaced took 2.5x as long).
constexpr size_t kLeafSize = 8;

bool shape_less(const ShapeIndex::Entry& a, const ShapeIndex::Entry& b) noexcept {
  return std::tie(a.m, a.n, a.k) < std::tie(b.m, b.n, b.k);
}

}  // namespace

struct ShapeIndex::Best {
  uint32_t entry = std::numeric_limits<uint32_t>::max();
  double d2 = std::numeric_limits<double>::infinity();
};

ShapeIndex::ShapeIndex(std::vector<Entry> entries) : entries_(std::move(entries)) {
  std::stable_sort(entries_.begin(), entries_.end(), shape_less);
  // Built on (point, entry) pairs, so the tree order of both comes out of one permutation.
  std::vector<TreePoint> points(entries_.size());
  for (size_t i = 0; i < entries_.size(); ++i) {
    const Entry& e = entries_[i];
    points[i] = {{std::log(double(e.m)), std::log(double(e.n)), std::log(double(e.k))},
                 static_cast<uint32_t>(i)};
  }
  build(1, 0, points.size(), points);
  point_.reserve(points.size());
  entry_.reserve(points.size());
  for (const TreePoint& p : points) {
    point_.push_back(p.c);
    entry_.push_back(p.entry);
  }
}

void ShapeIndex::build(size_t node, size_t lo, size_t hi, std::vector<TreePoint>& points) {
  if (hi - lo <= kLeafSize) return;
  // Split on the axis of largest spread: tuned grids are rarely cubes (M often spans a few
  // values, N and K many), and a round-robin axis wastes levels on the narrow one.
  std::array<double, 3> low, high;
  low.fill(std::numeric_limits<double>::infinity());
  high.fill(-std::numeric_limits<double>::infinity());
  for (size_t i = lo; i < hi; ++i) {
    for (int a = 0; a < 3; ++a) {
      low[a] = std::min(low[a], points[i].c[a]);
      high[a] = std::max(high[a], points[i].c[a]);
    }
  }
  int axis = 0;
  for (int a = 1; a < 3; ++a) {
    if (high[a] - low[a] > high[axis] - low[axis]) axis = a;
  }
  const size_t mid = lo + (hi - lo) / 2;
  const auto first = points.begin();
  std::nth_element(first + static_cast<ptrdiff_t>(lo), first + static_cast<ptrdiff_t>(mid),
                   first + static_cast<ptrdiff_t>(hi), [axis](const TreePoint& a, const TreePoint& b) {
                     return a.c[axis] < b.c[axis];
                   });
  if (node >= split_.size()) {
    split_.resize(node + 1);
    axis_.resize(node + 1);
  }
  split_[node] = points[mid].c[axis];
  axis_[node] = static_cast<uint8_t>(axis);
  build(2 * node, lo, mid, points);
  build(2 * node + 1, mid, hi, points);
}

const ShapeIndex::Entry* ShapeIndex::exact(const ProblemQuery& q) const noexcept {
  Entry key;
  key.m = q.m;
  key.n = q.n;
  key.k = q.k;
  const auto hit = std::lower_bound(entries_.begin(), entries_.end(), key, shape_less);
  if (hit == entries_.end() || hit->m != q.m || hit->n != q.n || hit->k != q.k) return nullptr;
  return &*hit;
}

ShapeIndex::Nearest ShapeIndex::nearest(const ProblemQuery& q,
                                        const std::array<double, 3>& log_q) const noexcept {
  Best best;
  std::array<double, 3> offset{};
  search(1, 0, point_.size(), q, log_q, offset, 0.0, best);
  if (best.entry == std::numeric_limits<uint32_t>::max()) return {};
  return {&entries_[best.entry], std::sqrt(best.d2)};
}

// Branch and bound with incremental cell distances (Arya & Mount): `offset` holds the query's
// per-axis distance to the current cell and `cell_d2` their squared sum, so a far subtree is
// skipped when its whole cell is farther than the best so far, not merely its splitting plane.
// A cell as far as the best is still visited, for the tie rule. Entries whose winner
// is illegal for the query are skipped; legality is only checked for an entry that would
// improve the best. Recursion depth is log2(size / kLeafSize); no allocation.
void ShapeIndex::search(size_t node, size_t lo, size_t hi, const ProblemQuery& q,
                        const std::array<double, 3>& log_q, std::array<double, 3>& offset,
                        double cell_d2, Best& best) const noexcept {
  if (hi - lo <= kLeafSize) {
    for (size_t i = lo; i < hi; ++i) {
      const double dx = log_q[0] - point_[i][0], dy = log_q[1] - point_[i][1],
                   dz = log_q[2] - point_[i][2];
      const double d2 = dx * dx + dy * dy + dz * dz;
      if (d2 > best.d2 || (d2 == best.d2 && entry_[i] > best.entry)) continue;
      if (entries_[entry_[i]].constraints.allows(q)) best = {entry_[i], d2};
    }
    return;
  }
  const size_t mid = lo + (hi - lo) / 2;
  const int axis = axis_[node];
  const double diff = log_q[axis] - split_[node];
  const bool left_first = diff < 0;
  if (left_first) {
    search(2 * node, lo, mid, q, log_q, offset, cell_d2, best);
  } else {
    search(2 * node + 1, mid, hi, q, log_q, offset, cell_d2, best);
  }
  const double old = offset[axis];
  const double far_d2 = cell_d2 - old * old + diff * diff;
  // The slack covers the rounding of the incremental sum, so an exactly tied entry in the far
  // cell is never pruned by an ulp.
  if (far_d2 > best.d2 * (1 + 1e-9)) return;
  offset[axis] = diff;
  if (left_first) {
    search(2 * node + 1, mid, hi, q, log_q, offset, far_d2, best);
  } else {
    search(2 * node, lo, mid, q, log_q, offset, far_d2, best);
  }
  offset[axis] = old;
}

}  // namespace vktune::runtime
