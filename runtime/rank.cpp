// rank_neighbours: candidates from the neighbours' heads, scores from their whole lists.
#include "runtime/rank.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <numbers>

namespace vktune::runtime {
namespace {

constexpr size_t kMaxCandidates = kMaxRankNeighbours * kRankCandidatesPerNeighbour;
// A variant absent from a neighbour's list (but legal there) ran at least this much slower
// than the best there, as far as the list can tell: twice, ln 2 in log ratios.
constexpr double kAbsentLogRatio = std::numbers::ln2;
// Keeps a neighbour at distance 0 (another driver's exact problem) from taking all the weight.
constexpr double kDistanceFloor = 0.1;
constexpr size_t kCacheLine = 64;
// A candidate's place in a list where it is not listed.
constexpr uint16_t kAbsent = std::numeric_limits<uint16_t>::max();
// Candidate number of every kernel that is no candidate: its places go to a row nobody reads.
constexpr uint8_t kNoCandidate = kMaxCandidates;
static_assert(kMaxCandidates < std::numeric_limits<uint8_t>::max());

void prefetch(const void* data, size_t bytes) noexcept {
  const auto* p = static_cast<const char*>(data);
  for (size_t b = 0; b < bytes; b += kCacheLine) __builtin_prefetch(p + b);
}

}  // namespace

double grid_fill(uint64_t workgroups, uint64_t slots) noexcept {
  if (slots == 0 || workgroups % slots == 0) return 1;
  const uint64_t waves = (workgroups + slots - 1) / slots;
  return double(workgroups) / double(waves * slots);
}

bool index_pickable(std::span<const ShapeIndex::Entry> entries, RankedLists& lists,
                    std::span<const uint32_t> variant_of) {
  constexpr uint16_t kUnnumbered = std::numeric_limits<uint16_t>::max();
  auto variant = [&](uint32_t kernel) { return variant_of.empty() ? kernel : variant_of[kernel]; };
  std::vector<uint16_t> id_of;  // by variant
  lists.pickable = 0;
  for (const ShapeIndex::Entry& e : entries) {
    if (e.ranked_count > kAbsent) return false;
    const size_t head = std::min<size_t>(e.ranked_count, kRankCandidatesPerNeighbour);
    for (size_t i = 0; i < head; ++i) {
      const uint32_t v = variant(lists.variants[e.ranked_first + i].kernel);
      if (v >= id_of.size()) id_of.resize(size_t{v} + 1, kUnnumbered);
      if (id_of[v] != kUnnumbered) continue;
      if (lists.pickable == kMaxPickable) return false;
      id_of[v] = static_cast<uint16_t>(lists.pickable++);
    }
  }
  lists.pick.resize(lists.variants.size());
  for (size_t i = 0; i < lists.variants.size(); ++i) {
    const uint32_t v = variant(lists.variants[i].kernel);
    const uint16_t id = v < id_of.size() ? id_of[v] : kUnnumbered;
    lists.pick[i] = id == kUnnumbered ? static_cast<uint16_t>(lists.pickable) : id;
  }
  return true;
}

// Three passes, none of which branches on the data of a list entry: the candidates from the
// heads; every list entry's kernel looked up in a table of candidate numbers by pickable id,
// its place written to that candidate's row (non-candidates write to a row nobody reads); then
// each candidate's score from its row. The per-entry hash probe this replaced branched on the
// data of each of the ~190 entries of six lists of 32 (the H100 database); with it a ranked
// select took about twice as long (docs/evaluate.md).
RankedPick rank_neighbours(std::span<const ShapeIndex::Nearest> neighbours, const RankedLists& lists,
                           const RankKernels& kernels, uint32_t compute_units,
                           const ProblemQuery& q) noexcept {
  const size_t n = std::min(neighbours.size(), kMaxRankNeighbours);
  const RankedVariant* variants = lists.variants.data();
  const uint16_t* pick = lists.pick.data();
  size_t ranking = 0;
  for (size_t j = 0; j < n; ++j) {
    const ShapeIndex::Entry& e = *neighbours[j].entry;
    ranking += e.ranked_count >= 2 ? 1 : 0;
    // In a large snapshot each neighbour's list is likely a cache miss: ask for every list now,
    // so the misses overlap.
    prefetch(pick + e.ranked_first, e.ranked_count * sizeof(uint16_t));
    prefetch(variants + e.ranked_first, e.ranked_count * sizeof(RankedVariant));
  }
  if (ranking < 2) return {};

  // Candidate number by pickable id; the shared id of the kernels heading no list included.
  std::array<uint8_t, kMaxPickable + 1> candidate_of;
  std::memset(candidate_of.data(), kNoCandidate, lists.pickable + 1);
  std::array<const RankedVariant*, kMaxCandidates> candidates;
  size_t count = 0;
  for (size_t j = 0; j < n; ++j) {
    const ShapeIndex::Entry& e = *neighbours[j].entry;
    const size_t head = std::min<size_t>(e.ranked_count, kRankCandidatesPerNeighbour);
    for (size_t i = e.ranked_first; i < e.ranked_first + head; ++i) {
      const uint16_t id = pick[i];
      if (candidate_of[id] != kNoCandidate || !kernels.constraints[variants[i].kernel].allows(q)) {
        continue;
      }
      candidate_of[id] = static_cast<uint8_t>(count);
      candidates[count++] = &variants[i];
    }
  }
  if (count == 0) return {};

  // place[c][j]: where candidate c first appears in neighbour j's list, or kAbsent. Lists are
  // walked backwards so that the first place is the one left.
  std::array<std::array<uint16_t, kMaxRankNeighbours>, kMaxCandidates + 1> place;
  for (size_t c = 0; c < count; ++c) place[c].fill(kAbsent);
  std::array<double, kMaxRankNeighbours> weight{}, absent_term{};
  std::array<bool, kMaxRankNeighbours> absent_counts{};
  std::array<ProblemQuery, kMaxRankNeighbours> there;
  for (size_t j = 0; j < n; ++j) {
    const ShapeIndex::Entry& e = *neighbours[j].entry;
    const double d = neighbours[j].distance + kDistanceFloor;
    weight[j] = 1 / (d * d);
    for (size_t i = e.ranked_count; i-- > 0;) {
      place[candidate_of[pick[e.ranked_first + i]]][j] = static_cast<uint16_t>(i);
    }
    there[j] = ProblemQuery{q.op, q.dtype, e.m, e.n, e.k, e.group_size, e.heads, e.kv_heads};
    absent_counts[j] = e.ranked_count != 0;
    if (absent_counts[j]) {
      absent_term[j] = weight[j] * std::max<double>(
                                       kAbsentLogRatio,
                                       variants[e.ranked_first + e.ranked_count - 1].log_ratio);
    }
  }

  // Each score adds the listed terms first, nearest neighbour first, then the absent ones.
  const RankedVariant* best = nullptr;
  size_t best_j = 0, best_c = 0;
  double best_score = std::numeric_limits<double>::infinity();
  for (size_t c = 0; c < count; ++c) {
    const uint32_t kernel = candidates[c]->kernel;
    const kernels::OutputTile& tile = kernels.tiles[kernel];
    // How evenly its grid fills the GPU, on the query and on each neighbour (0: not counted).
    const uint64_t slots = tile.m == 0 && tile.n == 0
                               ? 0
                               : uint64_t{compute_units} *
                                     resident_workgroups(kernels.workgroup_sizes[kernel]);
    // A logarithm only where the neighbour's grid fills better: the charge is ln(f_j / f_q).
    const double query_fill = grid_fill(tile.workgroups(q.m, q.n), slots);
    auto carried = [&](size_t j) {
      const double fill = grid_fill(tile.workgroups(there[j].m, there[j].n), slots);
      const double charge = fill > query_fill ? std::log(fill / query_fill) : 0.0;
      return tile.log_useful_share(there[j].m, there[j].n) + charge;
    };
    double sum = 0, total = 0;
    const RankedVariant* nearest = nullptr;
    size_t nearest_j = 0;
    for (size_t j = 0; j < n; ++j) {
      if (place[c][j] == kAbsent) continue;
      const RankedVariant& v = variants[neighbours[j].entry->ranked_first + place[c][j]];
      sum += weight[j] * (v.log_ratio + carried(j));
      total += weight[j];
      if (nearest == nullptr) {
        nearest = &v;
        nearest_j = j;
      }
    }
    const Constraints& legal = kernels.constraints[kernel];
    for (size_t j = 0; j < n; ++j) {
      if (place[c][j] != kAbsent || !absent_counts[j] || !legal.allows(there[j])) continue;
      sum += absent_term[j] + weight[j] * carried(j);
      total += weight[j];
    }
    const double score = sum / total - tile.log_useful_share(q.m, q.n);
    if (score < best_score) {
      best_score = score;
      best = nearest;
      best_j = nearest_j;
      best_c = c;
    }
  }
  if (best == nullptr) return {};
  return {best, neighbours[best_j].entry, neighbours[best_j].distance, candidates[best_c]->kernel};
}

}  // namespace vktune::runtime
