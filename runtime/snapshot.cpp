// Snapshot: the lookup over a catalog's index (per device, per (op, dtype, group size, head
// counts): a ShapeIndex). Building that index: snapshot_build.cpp; reading a file or buffer:
// snapshot_load.cpp.
#include "runtime/snapshot.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <tuple>

#include "runtime/builtin.h"
#include "runtime/rank.h"
#include "runtime/shape_index.h"
#include "runtime/snapshot_parts.h"

namespace vktune::runtime {

Snapshot::Snapshot() = default;
Snapshot::~Snapshot() = default;

namespace {

using Kernel = Snapshot::Kernel;
using Group = Snapshot::Group;
using Lists = Snapshot::Lists;
using Device = Snapshot::Device;

void fill(const Kernel& k, const ShapeIndex::Entry& p, const Device& d,
          const std::string& source, Selection& out) noexcept {
  out.status = Status::ok;
  out.source = source;
  out.layer = 0;
  out.family = k.family;
  out.variant_key = k.variant_key;
  out.knobs_json = k.knobs_json;
  out.constraints_json = k.constraints_json;
  out.layout = k.layout;
  out.workgroup_size = k.workgroup_size;
  out.constraints = k.constraints;
  out.spirv = k.spirv;
  out.specialization = k.specialization;
  out.median_ns = p.median_ns;
  out.matched_device_name = d.name;
  out.matched_driver_version = d.fingerprint.driver_version;
  out.matched_m = p.m;
  out.matched_n = p.n;
  out.matched_k = p.k;
  out.matched_group_size = p.group_size;
  out.matched_heads = p.heads;
  out.matched_kv_heads = p.kv_heads;
}

bool exact_fingerprint(const DeviceQuery& d, const DeviceQuery& q) noexcept {
  return d.vendor_id == q.vendor_id && d.device_id == q.device_id && d.driver_id == q.driver_id &&
         d.driver_version == q.driver_version && d.pipeline_cache_uuid == q.pipeline_cache_uuid;
}

// How far a group's head counts are from q's (sdpa): the log ratios of their query heads and
// of their query heads per KV head, in quadrature; 0 where they agree (every other op). Infinite
// where either side lacks head counts (a zero, as another op's group or a row without them
// has): such a group is never near, and no count is ever divided by zero.
double heads_distance(const Group& g, const ProblemQuery& q) noexcept {
  if (g.heads == q.heads && g.kv_heads == q.kv_heads) return 0;
  if (g.heads == 0 || g.kv_heads == 0 || q.heads == 0 || q.kv_heads == 0) {
    return std::numeric_limits<double>::infinity();
  }
  return std::hypot(std::log(double(g.heads) / double(q.heads)),
                    std::log(double(g.heads / g.kv_heads) / double(q.heads / q.kv_heads)));
}

// q's ShapeIndex::point, at its op's axis scale.
std::array<double, 3> query_point(const ProblemQuery& q) noexcept {
  return ShapeIndex::point(q.m, q.n, q.k, ShapeIndex::axis_scale(q.op));
}

// Where q sits among group g's shapes: q's point (`log_q`), with attention at other head counts
// counting its M x heads rows as rows of g's heads, so 64 heads at M = 1 rank among 32 heads'
// M = 2, where their variants launch as many workgroups (M x heads / qpg x slices). On the H100,
// against ranking at the query's own M, this took 57 picks of 72 at six other head counts within
// 10% of their best instead of 52, the median regret 0.7% instead of 2.1% (docs/evaluate.md).
std::array<double, 3> point_in(const Group& g, const ProblemQuery& q,
                               std::array<double, 3> log_q) noexcept {
  if (g.heads != q.heads) log_q[0] += std::log(double(q.heads) / double(g.heads));
  return log_q;
}

// The group of `d` that answers `q`: the one of q's head counts and group size. Where the device
// tuned none, for attention the head counts whose nearest tuned problem is nearest, the head
// counts' distance and the shapes' in quadrature (32 / 16 heads is as far from 32 / 8 as from
// 24 / 8 or 32 / 32; the group that tuned shapes near the query answers), then for the linears
// the nearest group size in log scale (the larger on a tie), of the same op and dtype. The group
// size moves the scales' share of the traffic, not which tile or grid suits a shape, so a query
// of an untuned group size (gs=64 on a database tuned at 32 and 128) is answered better by a
// tuned one's ranking than by the built-in routing. Attention over other head counts is the same
// kernels' work split another way (M x heads / qpg rows), so it too is answered better by a tuned
// one's ranking, among its variants legal for the query's head group, than by the built-in
// routing. (Attention's ranking then draws on every head count's shapes: add_other_head_counts.)
const Group* group_for(const Device& d, const ProblemQuery& q) noexcept {
  const Group* nearest = nullptr;
  std::pair<double, double> nearest_distance;
  std::optional<std::array<double, 3>> log_q;  // q's point, where another head count needs it
  for (const Group& g : d.groups) {
    if (g.op != q.op || g.dtype != q.dtype) continue;
    if (g.group_size != q.group_size && (g.group_size == 0 || q.group_size == 0)) continue;
    double heads = heads_distance(g, q);
    if (std::isinf(heads)) continue;
    if (heads != 0) {
      if (!log_q) log_q = query_point(q);
      std::array<ShapeIndex::Nearest, 1> shape;
      if (g.shapes.nearest_k(point_in(g, q, *log_q), shape) == 0) continue;
      heads = std::hypot(heads, shape[0].distance);
    }
    const std::pair<double, double> distance{
        heads, std::abs(std::log(double(g.group_size) / double(q.group_size)))};
    if (distance == std::pair{0.0, 0.0}) return &g;
    if (nearest == nullptr || distance < nearest_distance ||
        (distance == nearest_distance && std::tie(g.heads, g.kv_heads, g.group_size) >
                                             std::tie(nearest->heads, nearest->kv_heads,
                                                      nearest->group_size))) {
      nearest = &g;
      nearest_distance = distance;
    }
  }
  return nearest;
}

// Inserts `e` at `distance` into the `found` neighbours in `out` (nearest first) if it is among
// the nearest out.size(); returns the new count.
size_t insert_neighbour(const ShapeIndex::Entry& e, double distance,
                        std::span<ShapeIndex::Nearest> out, size_t found) noexcept {
  if (found == out.size() && out[found - 1].distance <= distance) return found;
  size_t at = found < out.size() ? found++ : found - 1;
  for (; at > 0 && out[at - 1].distance > distance; --at) out[at] = out[at - 1];
  out[at] = {&e, distance};
  return found;
}

// Adds to the `found` neighbours in `out` (of `own`, the query's group size; nearest first) the
// shapes tuned at the device's other group sizes of own's op, dtype and heads that `own` lacks,
// each at hypot(its distance, kOtherGroupSizeScale * |ln(group size ratio)|), keeping the
// nearest out.size() of them all. The query's own shape at another group size is the nearest such
// neighbour; a shape `own` holds stands for itself, so a database tuned at every group size alike
// ranks from its own group size's shapes, and one tuned at one group size answers the others.
// Returns the new count.
size_t add_other_group_sizes(const Device& d, const Group& own, const ProblemQuery& q,
                             const std::array<double, 3>& log_q,
                             std::span<ShapeIndex::Nearest> out, size_t found) noexcept {
  for (const Group& g : d.groups) {
    if (&g == &own || g.lists != own.lists || g.group_size == 0 || q.group_size == 0) continue;
    const double gs_distance =
        kOtherGroupSizeScale * std::abs(std::log(double(g.group_size) / double(q.group_size)));
    std::array<ShapeIndex::Nearest, kRankNeighbours> theirs;
    const size_t count = g.shapes.nearest_k(log_q, theirs);
    for (size_t i = 0; i < count; ++i) {
      const ShapeIndex::Entry& e = *theirs[i].entry;
      if (own.shapes.exact({.m = e.m, .n = e.n, .k = e.k}) != nullptr) continue;
      found = insert_neighbour(e, std::hypot(theirs[i].distance, gs_distance), out, found);
    }
  }
  return found;
}

// Attention: puts every one of the `found` neighbours in `out` (of `own`, nearest first) and
// the shapes tuned at the device's other head counts (of own's op and dtype) at
// hypot(their distance, kOtherHeadsScale * heads_distance), with q's M x heads rows counted as
// rows of each one's heads (point_in), keeping the nearest out.size() of them all. Returns the
// new count.
size_t add_other_head_counts(const Device& d, const Group& own, const ProblemQuery& q,
                             const std::array<double, 3>& log_q,
                             std::span<ShapeIndex::Nearest> out, size_t found) noexcept {
  if (const double apart = kOtherHeadsScale * heads_distance(own, q); apart != 0) {
    for (size_t i = 0; i < found; ++i) out[i].distance = std::hypot(out[i].distance, apart);
  }
  for (const Group& g : d.groups) {
    if (&g == &own || g.lists != own.lists || g.heads == 0) continue;
    const double apart = kOtherHeadsScale * heads_distance(g, q);
    if (std::isinf(apart)) continue;
    std::array<ShapeIndex::Nearest, kRankNeighbours> theirs;
    const size_t count = g.shapes.nearest_k(point_in(g, q, log_q), theirs);
    for (size_t i = 0; i < count; ++i) {
      found = insert_neighbour(*theirs[i].entry, std::hypot(theirs[i].distance, apart), out, found);
    }
  }
  return found;
}

bool matches(DeviceMatch level, const Device& device, const DeviceQuery& q) noexcept {
  const DeviceQuery& d = device.fingerprint;
  switch (level) {
    case DeviceMatch::exact: return exact_fingerprint(d, q);
    case DeviceMatch::other_driver:
      return d.vendor_id == q.vendor_id && d.device_id == q.device_id && !exact_fingerprint(d, q);
    case DeviceMatch::same_vendor_type:
      return d.vendor_id == q.vendor_id && d.device_id != q.device_id && d.device_type == q.device_type;
    case DeviceMatch::builtin: return false;
  }
  return false;
}

}  // namespace

std::shared_ptr<const Snapshot> Snapshot::fail(std::string* error, std::string message) noexcept {
  if (error != nullptr) {
    try {
      *error = std::move(message);
    } catch (...) {
    }
  }
  return nullptr;
}

size_t Snapshot::device_count() const noexcept { return devices_.size(); }

size_t Snapshot::winner_count() const noexcept {
  size_t n = 0;
  for (const auto& d : devices_) {
    for (const auto& g : d.groups) n += g.shapes.size();
  }
  return n;
}

bool Snapshot::answer(const Device& d, DeviceMatch level, const ProblemQuery& problem,
                      Selection& out) const noexcept {
  const Group* g = group_for(d, problem);
  if (g == nullptr) return false;
  // Another group size's or head counts' problems are never exact, and their distances add to
  // theirs.
  const bool own_group_size = g->group_size == problem.group_size;
  const double gs_log =
      own_group_size ? 0.0 : std::log(double(g->group_size) / double(problem.group_size));
  const double heads_log = heads_distance(*g, problem);
  if (own_group_size && heads_log == 0) {
    const ShapeIndex::Entry* hit = g->shapes.exact(problem);
    if (hit != nullptr && hit->constraints.allows(problem)) {
      fill(kernels_[hit->kernel], *hit, d, source_, out);
      out.device_match = level;
      out.shape_match = ShapeMatch::exact;
      return true;
    }
  }
  const std::array<double, 3> log_q = query_point(problem);
  const std::array<double, 3> at = point_in(*g, problem, log_q);
  std::array<ShapeIndex::Nearest, kMaxRankNeighbours> neighbours;
  size_t found = g->shapes.nearest_k(at, std::span(neighbours).first<kRankNeighbours>());
  if (own_group_size) found = add_other_group_sizes(d, *g, problem, at, neighbours, found);
  if (g->heads != 0) found = add_other_head_counts(d, *g, problem, log_q, neighbours, found);
  // An attention neighbour's distance holds its head counts' already.
  const auto apart = [&](double distance) {
    return g->heads != 0 ? distance : std::hypot(distance, gs_log);
  };
  const Lists& lists = d.lists[g->lists];
  const RankedPick pick =
      rank_neighbours({neighbours.data(), found}, lists.ranked,
                      {constraints_, tiles_, workgroup_sizes_}, d.compute_units, problem);
  if (pick.variant != nullptr) {
    fill(kernels_[pick.kernel], *pick.measured_on, d, source_, out);
    out.median_ns =
        lists.ranked_ns[static_cast<size_t>(pick.variant - lists.ranked.variants.data())];
    out.device_match = level;
    out.shape_match = ShapeMatch::ranked;
    out.shape_distance = apart(pick.distance);
    return true;
  }
  const ShapeIndex::Nearest near = g->shapes.nearest(problem, at);
  if (near.entry == nullptr) return false;
  fill(kernels_[near.entry->kernel], *near.entry, d, source_, out);
  out.device_match = level;
  out.shape_match = ShapeMatch::nearest;
  out.shape_distance = std::hypot(near.distance, gs_log, heads_log);
  return true;
}

Selection Snapshot::select(const DeviceQuery& device, const ProblemQuery& problem) const noexcept {
  Selection out;
  if (const auto why = validate(problem); !why.empty()) {
    out.status = Status::invalid_query;
    out.error = why;
    return out;
  }
  for (const DeviceMatch level :
       {DeviceMatch::exact, DeviceMatch::other_driver, DeviceMatch::same_vendor_type}) {
    for (const Device& d : devices_) {
      if (!matches(level, d, device) || !answer(d, level, problem, out)) continue;
      if (out.shape_match == ShapeMatch::exact || level == DeviceMatch::same_vendor_type) {
        return out;
      }
      // A shape this device never tuned: the kin that tuned the nearest one answers instead
      // where it is nearer by enough (runtime/rank.h, kin_answers_instead).
      Selection pick = out;
      for (const Device& k : devices_) {
        Selection theirs;
        if (matches(DeviceMatch::same_vendor_type, k, device) &&
            answer(k, DeviceMatch::same_vendor_type, problem, theirs) &&
            kin_answers_instead(out, theirs) &&
            (pick.device_match != DeviceMatch::same_vendor_type ||
             theirs.shape_distance < pick.shape_distance)) {
          pick = theirs;
        }
      }
      return pick;
    }
  }
  select_builtin(problem, out);
  return out;
}

}  // namespace vktune::runtime
