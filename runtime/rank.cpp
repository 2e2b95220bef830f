// rank_neighbours: candidates from the neighbours' heads, scores from their whole lists.
#include "runtime/rank.h"

#include <algorithm>
#include <array>
#include <limits>

namespace vktune::runtime {
namespace {

constexpr size_t kMaxCandidates = kRankNeighbours * kRankCandidatesPerNeighbour;
// A variant absent from a neighbour's list (but legal there) ran at least this much slower
// than the best there, as far as the list can tell.
constexpr double kAbsentRatio = 2.0;
// Keeps a neighbour at distance 0 (another driver's exact problem) from taking all the weight.
constexpr double kDistanceFloor = 0.1;
constexpr size_t kCacheLine = 64;

// Trivially constructible: only the `count` candidates in use are ever written or read, so
// the array of them costs nothing to set up.
struct Candidate {
  const RankedVariant* variant;
  const RankedVariant* nearest;  // its entry in the nearest neighbour that has it
  size_t nearest_j;
  double sum, weight;
  uint32_t seen;  // bit j: neighbour j's list holds it
};

// Open addressing on the kernel index: a few probes per list entry instead of a scan of every
// candidate. Twice the candidates or more, a power of two.
class CandidateTable {
 public:
  CandidateTable() { slot_.fill(kEmpty); }
  void insert(uint32_t kernel, uint8_t index) noexcept {
    filter_ |= uint64_t{1} << start(kernel);
    size_t s = start(kernel);
    while (slot_[s] != kEmpty) s = (s + 1) % kSlots;
    slot_[s] = kernel;
    index_[s] = index;
  }
  // The candidate index of `kernel`, or -1.
  int find(uint32_t kernel) const noexcept {
    // Most kernels of a neighbour's list are no candidate: one bit test turns them away.
    if ((filter_ >> start(kernel) & 1) == 0) return -1;
    for (size_t s = start(kernel); slot_[s] != kEmpty; s = (s + 1) % kSlots) {
      if (slot_[s] == kernel) return index_[s];
    }
    return -1;
  }

 private:
  static constexpr size_t kSlots = 64;
  static_assert(kSlots >= 2 * kMaxCandidates && kSlots == 64);
  static constexpr uint32_t kEmpty = std::numeric_limits<uint32_t>::max();
  static size_t start(uint32_t kernel) noexcept { return (kernel * 2654435761u) >> 26; }
  std::array<uint32_t, kSlots> slot_;
  std::array<uint8_t, kSlots> index_{};
  uint64_t filter_ = 0;  // bit start(kernel) of every candidate (kSlots == 64 bits)
};

}  // namespace

RankedPick rank_neighbours(std::span<const ShapeIndex::Nearest> neighbours,
                           std::span<const RankedVariant> variants,
                           std::span<const Constraints> constraints, const ProblemQuery& q) noexcept {
  const size_t n = std::min(neighbours.size(), kRankNeighbours);
  size_t ranking = 0;
  for (size_t j = 0; j < n; ++j) {
    const ShapeIndex::Entry& e = *neighbours[j].entry;
    ranking += e.ranked_count >= 2 ? 1 : 0;
    // In a large snapshot each neighbour's list is likely a cache miss (most of a lookup's time
    // was spent waiting on them one after another): ask for every list now, so the misses
    // overlap.
    const auto* list = reinterpret_cast<const char*>(variants.data() + e.ranked_first);
    for (size_t b = 0; b < e.ranked_count * sizeof(RankedVariant); b += kCacheLine) {
      __builtin_prefetch(list + b);
    }
  }
  if (ranking < 2) return {};

  std::array<Candidate, kMaxCandidates> candidates;
  size_t count = 0;
  CandidateTable table;
  std::array<double, kRankNeighbours> weight{};
  for (size_t j = 0; j < n; ++j) {
    const ShapeIndex::Entry& e = *neighbours[j].entry;
    const double d = neighbours[j].distance + kDistanceFloor;
    weight[j] = 1 / (d * d);
    const size_t head = std::min<size_t>(e.ranked_count, kRankCandidatesPerNeighbour);
    for (size_t i = 0; i < head; ++i) {
      const RankedVariant& v = variants[e.ranked_first + i];
      if (!constraints[v.kernel].allows(q) || table.find(v.kernel) >= 0) continue;
      table.insert(v.kernel, static_cast<uint8_t>(count));
      candidates[count++] = Candidate{&v, nullptr, 0, 0, 0, 0};
    }
  }
  // Every list entry of a candidate adds to its score.
  for (size_t j = 0; j < n; ++j) {
    const ShapeIndex::Entry& e = *neighbours[j].entry;
    for (size_t i = 0; i < e.ranked_count; ++i) {
      const RankedVariant& v = variants[e.ranked_first + i];
      const int c = table.find(v.kernel);
      if (c < 0) continue;
      Candidate& x = candidates[static_cast<size_t>(c)];
      x.sum += weight[j] * v.ratio * v.ratio;
      x.weight += weight[j];
      if (x.seen == 0) {
        x.nearest = &v;
        x.nearest_j = j;
      }
      x.seen |= 1u << j;
    }
  }
  const Candidate* best = nullptr;
  double best_score = std::numeric_limits<double>::infinity();
  for (size_t c = 0; c < count; ++c) {
    Candidate& x = candidates[c];
    for (size_t j = 0; j < n; ++j) {
      if ((x.seen >> j & 1u) != 0) continue;
      const ShapeIndex::Entry& e = *neighbours[j].entry;
      const ProblemQuery there{q.op, q.dtype, e.m, e.n, e.k, q.group_size, q.heads, q.kv_heads};
      if (e.ranked_count == 0 || !constraints[x.variant->kernel].allows(there)) continue;
      const double r = std::max<double>(kAbsentRatio, variants[e.ranked_first + e.ranked_count - 1].ratio);
      x.sum += weight[j] * r * r;
      x.weight += weight[j];
    }
    const double score = x.sum / x.weight;
    if (score < best_score) {
      best_score = score;
      best = &x;
    }
  }
  if (best == nullptr) return {};
  return {best->nearest, neighbours[best->nearest_j].entry, neighbours[best->nearest_j].distance};
}

}  // namespace vktune::runtime
