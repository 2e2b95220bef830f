// ShapeIndex: a sorted array for exact hits and a bucketed k-d tree for nearest hits.
#include "runtime/shape_index.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <tuple>
#include <utility>

#include "kernels/op.h"

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

// The `capacity` nearest entries found so far, nearest first; with `legal_for` set, only
// entries whose winner is legal for it.
struct ShapeIndex::Best {
  const ProblemQuery* legal_for = nullptr;
  size_t capacity = 1;
  size_t size = 0;
  std::array<std::pair<double, uint32_t>, kMaxNeighbours> found;  // (squared distance, entry)

  // The squared distance an entry must not exceed to be offered.
  double bound() const noexcept {
    return size < capacity ? std::numeric_limits<double>::infinity() : found[size - 1].first;
  }
  // Keeps (d2, entry) if it is among the nearest; ties go to the smaller entry index, which is
  // the smaller (M, N, K), so the answer never depends on the tree's shape.
  void offer(double d2, uint32_t entry, const std::vector<Entry>& entries) noexcept {
    const std::pair candidate{d2, entry};
    if (size == capacity && !(candidate < found[size - 1])) return;
    if (legal_for != nullptr && !entries[entry].constraints.allows(*legal_for)) return;
    size_t i = size < capacity ? size++ : size - 1;
    for (; i > 0 && candidate < found[i - 1]; --i) found[i] = found[i - 1];
    found[i] = candidate;
  }
};

double ShapeIndex::axis_scale(std::string_view op) noexcept {
  const kernels::OpDescriptor* d = kernels::find_op(op);
  return d ? d->shape_axis_scale : kWeightAxisScale;
}

std::array<double, 3> ShapeIndex::point(uint32_t m, uint32_t n, uint32_t k, double scale) noexcept {
  return {std::log(double(m)), scale * std::log(double(n)), scale * std::log(double(k))};
}

ShapeIndex::ShapeIndex(std::vector<Entry> entries, double scale) : entries_(std::move(entries)) {
  std::stable_sort(entries_.begin(), entries_.end(), shape_less);
  // Built on (point, entry) pairs, so the tree order of both comes out of one permutation.
  std::vector<TreePoint> points(entries_.size());
  for (size_t i = 0; i < entries_.size(); ++i) {
    const Entry& e = entries_[i];
    points[i] = {point(e.m, e.n, e.k, scale), static_cast<uint32_t>(i)};
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
  best.legal_for = &q;
  std::array<double, 3> offset{};
  search(1, 0, point_.size(), log_q, offset, 0.0, best);
  if (best.size == 0) return {};
  return {&entries_[best.found[0].second], std::sqrt(best.found[0].first)};
}

size_t ShapeIndex::nearest_k(const std::array<double, 3>& log_q,
                             std::span<Nearest> out) const noexcept {
  Best best;
  best.capacity = std::min(out.size(), kMaxNeighbours);
  if (best.capacity == 0) return 0;
  std::array<double, 3> offset{};
  search(1, 0, point_.size(), log_q, offset, 0.0, best);
  for (size_t i = 0; i < best.size; ++i) {
    out[i] = {&entries_[best.found[i].second], std::sqrt(best.found[i].first)};
  }
  return best.size;
}

// Branch and bound with incremental cell distances (Arya & Mount): `offset` holds the query's
// per-axis distance to the current cell and `cell_d2` their squared sum, so a far subtree is
// skipped when its whole cell is farther than the best so far, not merely its splitting plane.
// A cell as far as the bound is still visited, for the tie rule. With best.legal_for set,
// entries whose winner is illegal for it are skipped; legality is only checked for an entry
// that would be kept. Recursion depth is log2(size / kLeafSize); no allocation.
void ShapeIndex::search(size_t node, size_t lo, size_t hi, const std::array<double, 3>& log_q,
                        std::array<double, 3>& offset, double cell_d2, Best& best) const noexcept {
  if (hi - lo <= kLeafSize) {
    for (size_t i = lo; i < hi; ++i) {
      const double dx = log_q[0] - point_[i][0], dy = log_q[1] - point_[i][1],
                   dz = log_q[2] - point_[i][2];
      best.offer(dx * dx + dy * dy + dz * dz, entry_[i], entries_);
    }
    return;
  }
  const size_t mid = lo + (hi - lo) / 2;
  const int axis = axis_[node];
  const double diff = log_q[axis] - split_[node];
  const bool left_first = diff < 0;
  if (left_first) {
    search(2 * node, lo, mid, log_q, offset, cell_d2, best);
  } else {
    search(2 * node + 1, mid, hi, log_q, offset, cell_d2, best);
  }
  const double old = offset[axis];
  const double far_d2 = cell_d2 - old * old + diff * diff;
  // The slack covers the rounding of the incremental sum, so an exactly tied entry in the far
  // cell is never pruned by an ulp.
  if (far_d2 > best.bound() * (1 + 1e-9)) return;
  offset[axis] = diff;
  if (left_first) {
    search(2 * node + 1, mid, hi, log_q, offset, far_d2, best);
  } else {
    search(2 * node, lo, mid, log_q, offset, far_d2, best);
  }
  offset[axis] = old;
}

}  // namespace vktune::runtime
