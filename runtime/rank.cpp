// rank_neighbours: candidates from the neighbours' heads, scores from their whole lists.
#include "runtime/rank.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <numbers>

#include "kernels/op.h"

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

namespace {

// The ranking's tables, on the stack: a ranked select allocates nothing.
struct Ranking {
  std::span<const ShapeIndex::Nearest> neighbours;  // the first kMaxRankNeighbours at most
  const RankedVariant* variants;
  const uint16_t* pick;
  size_t pickable;  // the lists' pickable ids: 0..pickable, the last shared by the rest
  // Candidate number by pickable id; the shared id of the kernels heading no list included.
  std::array<uint8_t, kMaxPickable + 1> candidate_of;
  std::array<const RankedVariant*, kMaxCandidates> candidates;
  size_t count = 0;
  // place[c][j]: where candidate c first appears in neighbour j's list, or kAbsent.
  std::array<std::array<uint16_t, kMaxRankNeighbours>, kMaxCandidates + 1> place;
  std::array<double, kMaxRankNeighbours> weight{}, absent_term{};
  std::array<bool, kMaxRankNeighbours> absent_counts{};
  std::array<ProblemQuery, kMaxRankNeighbours> there;  // neighbour j's problem
  // The query's and each neighbour's output as tiles cover it (OpDescriptor::output_grid).
  kernels::OutputGrid query_grid;
  std::array<kernels::OutputGrid, kMaxRankNeighbours> there_grid;
};

kernels::OutputGrid output_grid(const kernels::OpDescriptor* op, const ProblemQuery& p) noexcept {
  return op == nullptr ? kernels::OutputGrid{p.m, p.n}
                       : op->output_grid(p.m, p.n, p.heads, p.kv_heads);
}

// How many neighbours have a list of two or more; every list asked for meanwhile.
size_t prefetch_lists(const Ranking& r) noexcept {
  size_t ranking = 0;
  for (const ShapeIndex::Nearest& nearest : r.neighbours) {
    const ShapeIndex::Entry& e = *nearest.entry;
    ranking += e.ranked_count >= 2 ? 1 : 0;
    // In a large snapshot each neighbour's list is likely a cache miss: ask for every list now,
    // so the misses overlap.
    prefetch(r.pick + e.ranked_first, e.ranked_count * sizeof(uint16_t));
    prefetch(r.variants + e.ranked_first, e.ranked_count * sizeof(RankedVariant));
  }
  return ranking;
}

// The candidates: the legal kernels heading the neighbours' lists, each once.
void gather_candidates(Ranking& r, const RankKernels& kernels, const ProblemQuery& q) noexcept {
  std::memset(r.candidate_of.data(), kNoCandidate, r.pickable + 1);
  for (const ShapeIndex::Nearest& nearest : r.neighbours) {
    const ShapeIndex::Entry& e = *nearest.entry;
    const size_t head = std::min<size_t>(e.ranked_count, kRankCandidatesPerNeighbour);
    for (size_t i = e.ranked_first; i < e.ranked_first + head; ++i) {
      const uint16_t id = r.pick[i];
      if (r.candidate_of[id] != kNoCandidate ||
          !kernels.constraints[r.variants[i].kernel].allows(q)) {
        continue;
      }
      r.candidate_of[id] = static_cast<uint8_t>(r.count);
      r.candidates[r.count++] = &r.variants[i];
    }
  }
}

// Every list entry's place written to its candidate's row (non-candidates write to a row nobody
// reads), lists walked backwards so that the first place is the one left; each neighbour's
// weight, problem, output grid and absent term, and the query's grid.
void place_candidates(Ranking& r, const ProblemQuery& q) noexcept {
  const kernels::OpDescriptor* op = kernels::find_op(q.op);
  r.query_grid = output_grid(op, q);
  for (size_t c = 0; c < r.count; ++c) r.place[c].fill(kAbsent);
  for (size_t j = 0; j < r.neighbours.size(); ++j) {
    const ShapeIndex::Entry& e = *r.neighbours[j].entry;
    const double d = r.neighbours[j].distance + kDistanceFloor;
    r.weight[j] = 1 / (d * d);
    for (size_t i = e.ranked_count; i-- > 0;) {
      r.place[r.candidate_of[r.pick[e.ranked_first + i]]][j] = static_cast<uint16_t>(i);
    }
    r.there[j] = ProblemQuery{q.op, q.dtype, e.m, e.n, e.k, e.group_size, e.heads, e.kv_heads};
    r.there_grid[j] = output_grid(op, r.there[j]);
    r.absent_counts[j] = e.ranked_count != 0;
    if (r.absent_counts[j]) {
      r.absent_term[j] =
          r.weight[j] * std::max<double>(kAbsentLogRatio,
                                         r.variants[e.ranked_first + e.ranked_count - 1].log_ratio);
    }
  }
}

struct Score {
  double value;
  const RankedVariant* nearest;  // the candidate's entry in the nearest list holding it
  size_t nearest_j;
};

// Candidate c's score: the listed terms first, nearest neighbour first, then the absent ones.
Score score(const Ranking& r, size_t c, const RankKernels& kernels,
            uint32_t compute_units) noexcept {
  const uint32_t kernel = r.candidates[c]->kernel;
  const kernels::OutputTile& tile = kernels.tiles[kernel];
  // How evenly its grid fills the GPU, on the query and on each neighbour (0: not counted).
  const uint64_t slots = tile.m == 0 && tile.n == 0
                             ? 0
                             : uint64_t{compute_units} *
                                   resident_workgroups(kernels.workgroup_sizes[kernel]);
  // A logarithm only where the neighbour's grid fills better: the charge is ln(f_j / f_q).
  const kernels::OutputGrid& query = r.query_grid;
  const double query_fill = grid_fill(tile.workgroups(query.rows, query.cols), slots);
  auto carried = [&](size_t j) {
    const kernels::OutputGrid& there = r.there_grid[j];
    const double fill = grid_fill(tile.workgroups(there.rows, there.cols), slots);
    const double charge = fill > query_fill ? std::log(fill / query_fill) : 0.0;
    return tile.log_useful_share(there.rows, there.cols) + charge;
  };
  double sum = 0, total = 0;
  Score s{0, nullptr, 0};
  const size_t n = r.neighbours.size();
  for (size_t j = 0; j < n; ++j) {
    if (r.place[c][j] == kAbsent) continue;
    const RankedVariant& v = r.variants[r.neighbours[j].entry->ranked_first + r.place[c][j]];
    sum += r.weight[j] * (v.log_ratio + carried(j));
    total += r.weight[j];
    if (s.nearest == nullptr) {
      s.nearest = &v;
      s.nearest_j = j;
    }
  }
  const Constraints& legal = kernels.constraints[kernel];
  for (size_t j = 0; j < n; ++j) {
    if (r.place[c][j] != kAbsent || !r.absent_counts[j] || !legal.allows(r.there[j])) continue;
    sum += r.absent_term[j] + r.weight[j] * carried(j);
    total += r.weight[j];
  }
  s.value = sum / total - tile.log_useful_share(query.rows, query.cols);
  return s;
}

}  // namespace

// Three passes, none of which branches on the data of a list entry: the candidates from the
// heads; every list entry's kernel looked up in a table of candidate numbers by pickable id,
// its place written to that candidate's row; then each candidate's score from its row. The
// per-entry hash probe this replaced branched on the data of each of the ~190 entries of six
// lists of 32 (the H100 database); with it a ranked select took about twice as long
// (docs/evaluate.md).
RankedPick rank_neighbours(std::span<const ShapeIndex::Nearest> neighbours, const RankedLists& lists,
                           const RankKernels& kernels, uint32_t compute_units,
                           const ProblemQuery& q) noexcept {
  Ranking r;
  r.neighbours = neighbours.first(std::min(neighbours.size(), kMaxRankNeighbours));
  r.variants = lists.variants.data();
  r.pick = lists.pick.data();
  r.pickable = lists.pickable;
  if (prefetch_lists(r) < 2) return {};
  gather_candidates(r, kernels, q);
  if (r.count == 0) return {};
  place_candidates(r, q);
  Score best{std::numeric_limits<double>::infinity(), nullptr, 0};
  size_t best_c = 0;
  for (size_t c = 0; c < r.count; ++c) {
    const Score s = score(r, c, kernels, compute_units);
    if (s.value < best.value) {
      best = s;
      best_c = c;
    }
  }
  if (best.nearest == nullptr) return {};
  return {best.nearest, neighbours[best.nearest_j].entry, neighbours[best.nearest_j].distance,
          r.candidates[best_c]->kernel};
}

}  // namespace vktune::runtime
