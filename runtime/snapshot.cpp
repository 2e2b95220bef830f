// Snapshot: build-time indexing of a catalog (per device, per (op, dtype, group size, head
// counts): a ShapeIndex) and the lookup itself. Reading a file or buffer: snapshot_load.cpp.
#include "runtime/snapshot.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <nlohmann/json.hpp>
#include <tuple>
#include <unordered_map>

#include "db/error.h"
#include "db/spirv_check.h"
#include "kernels/constraints_json.h"
#include "kernels/family.h"
#include "runtime/builtin.h"
#include "runtime/rank.h"
#include "runtime/shape_index.h"
#include "runtime/stored_device.h"

namespace vktune::runtime {

struct Snapshot::Kernel {
  std::string family, variant_key, knobs_json, constraints_json, layout;
  uint32_t workgroup_size = 0;
  Constraints constraints;
  std::vector<uint8_t> spirv;
};

// Problems whose answers may stand in for each other: one op, dtype, group size and (sdpa)
// head counts; their shapes (M, N, K; sdpa's N is the context length) are the index.
struct Snapshot::Group {
  std::string op, dtype;
  uint32_t group_size = 0, heads = 0, kv_heads = 0;
  ShapeIndex shapes;
  uint32_t lists = 0;  // its entries' ranked lists: Device::lists[lists]
};

// The ranked lists of every group of one op and dtype, whatever their group size or head counts,
// in one numbering: a shape tuned at another group size or head counts ranks beside the query's
// neighbours.
struct Snapshot::Lists {
  RankedLists ranked;             // the entries' fastest variants, sliced by each entry
  std::vector<double> ranked_ns;  // ranked.variants[i]'s measured time: read for the pick alone
};

struct Snapshot::Device {
  // Its name left empty: `name` owns the text, and a view into it would not survive the
  // devices' sort (a short name lives inside the string object).
  DeviceQuery fingerprint;
  std::string name;
  uint32_t compute_units = 0;  // stored_compute_units: 0 leaves the grid's fill out of the ranking
  std::vector<Group> groups;
  std::vector<Lists> lists;
};

Snapshot::Snapshot() = default;
Snapshot::~Snapshot() = default;

namespace {

using Kernel = Snapshot::Kernel;
using Group = Snapshot::Group;
using Lists = Snapshot::Lists;
using Device = Snapshot::Device;

// Thrown while building only; load() turns it into its error string.
struct BuildError {
  std::string message;
};

Constraints parse_constraints(const std::string& text, const std::string& key) {
  try {
    return kernels::constraints_from_json(nlohmann::json::parse(text, nullptr, false),
                                          "kernel '" + key + "': constraints_json");
  } catch (const std::invalid_argument& e) {
    throw BuildError{e.what()};
  }
}

// The variant's output tile, the tile its K split hands over and its head-group multiple, as
// this runtime's catalogue describes them; none for a family or knobs it does not know (a
// database from another version): the ranking then leaves its padding out, and no split or head
// rule applies. (A database stored before the head-group constraint existed lacks it, and an
// answer may now come from another head count.)
struct CatalogueFacts {
  kernels::OutputTile output, split;
  uint32_t head_group_multiple = 1;
};
CatalogueFacts catalogue_facts(const std::string& family, const std::string& knobs_json) {
  const kernels::Family* f = kernels::find_family(family);
  if (f == nullptr) return {};
  const auto knobs = nlohmann::json::parse(knobs_json, nullptr, false);
  if (!knobs.is_object()) return {};
  try {
    const kernels::Knobs k = f->knobs_from_json(knobs);
    return {f->output_tile(k), f->split_tile(k), f->constraints(k).head_group_multiple};
  } catch (const kernels::BadKey&) {
    return {};
  }
}

// A stored module as the runtime serves it: none where the bytes are no SPIR-V module (an
// import refuses those; a database written by other means may hold them), so that an engine
// compiles or falls back rather than hand vkCreateShaderModule what it cannot take.
std::vector<uint8_t> servable_spirv(const std::optional<std::vector<uint8_t>>& stored) {
  if (!stored || !db::spirv_problem(*stored).empty()) return {};
  return *stored;
}

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

// Where each (device id, problem id)'s run of Catalog::ranked rows starts, and its length:
// the rows come grouped, so one pass finds them without copying any.
using RankedRuns = std::map<std::pair<int64_t, int64_t>, std::pair<size_t, size_t>>;
RankedRuns ranked_runs(const db::Catalog& catalog) {
  RankedRuns out;
  const auto& rows = catalog.ranked;
  for (size_t i = 0, j = 0; i < rows.size(); i = j) {
    while (j < rows.size() && rows[j].device_id == rows[i].device_id &&
           rows[j].problem_id == rows[i].problem_id) {
      ++j;
    }
    if (!out.emplace(std::pair{rows[i].device_id, rows[i].problem_id}, std::pair{i, j - i}).second) {
      throw BuildError{"a problem's ranked variants are not listed together"};
    }
  }
  return out;
}

// Appends one problem's ranked rows to `out`, times relative to the first (the winner).
void append_ranked(const db::Catalog& catalog, std::pair<size_t, size_t> run,
                   const std::unordered_map<int64_t, uint32_t>& kernel_index,
                   std::vector<RankedVariant>& out, std::vector<double>& out_ns) {
  const double best = catalog.ranked[run.first].median_ns;
  for (size_t i = run.first; i < run.first + run.second; ++i) {
    const db::BestRow& r = catalog.ranked[i];
    const auto k = kernel_index.find(r.kernel_id);
    if (k == kernel_index.end()) throw BuildError{"a ranked variant refers to a kernel that is not there"};
    if (!(r.median_ns >= best) || !(best > 0) ||
        (i > run.first && r.median_ns < catalog.ranked[i - 1].median_ns)) {
      throw BuildError{"a problem's ranked variants are not in order of their times"};
    }
    out.push_back(RankedVariant{k->second, static_cast<float>(std::log(r.median_ns / best))});
    out_ns.push_back(r.median_ns);
  }
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

namespace {

// Winners gathered per (device, op, dtype, group size, head counts), then indexed in one go;
// their ranked lists per (device, op, dtype), every group size's and head counts' together.
struct WinnerBucket {
  uint32_t device;
  const db::Problem* key;  // op, dtype, group size and head counts of the bucket
  std::vector<ShapeIndex::Entry> entries;
  size_t lists;  // index into the lists buckets
};
struct ListsBucket {
  uint32_t device;
  const db::Problem* key;  // op and dtype
  Lists lists;
};

}  // namespace

class Snapshot::Builder {
 public:
  Builder(Snapshot& snap, const db::Catalog& catalog) : snap_(snap), catalog_(catalog) {}

  void add_kernels() {
    snap_.kernels_.reserve(catalog_.kernels.size());
    std::unordered_map<std::string_view, uint32_t> variant_index;
    for (const auto& k : catalog_.kernels) {
      variant_of_.push_back(
          variant_index.emplace(k.variant_key, static_cast<uint32_t>(variant_index.size())).first->second);
      kernel_index_[k.id] = static_cast<uint32_t>(snap_.kernels_.size());
      snap_.kernels_.push_back(Kernel{k.family, k.variant_key, k.knobs_json, k.constraints_json,
                                      k.layout, k.workgroup_size,
                                      parse_constraints(k.constraints_json, k.variant_key),
                                      servable_spirv(k.spirv)});
      snap_.constraints_.push_back(snap_.kernels_.back().constraints);
      snap_.workgroup_sizes_.push_back(k.workgroup_size);
    }
    snap_.tiles_.resize(snap_.kernels_.size());
    read_.resize(snap_.kernels_.size());
  }

  void add_devices() {
    for (const auto& d : catalog_.devices) {
      device_index_[d.id] = static_cast<uint32_t>(snap_.devices_.size());
      Device dev{stored_device_query(d), d.name, stored_compute_units(d), {}, {}};
      dev.fingerprint.name = {};
      snap_.devices_.push_back(std::move(dev));
    }
  }

  void add_winners() {
    std::unordered_map<int64_t, const db::Problem*> problems;
    problems.reserve(catalog_.problems.size());
    for (const auto& p : catalog_.problems) problems[p.id] = &p;
    const RankedRuns ranked = ranked_runs(catalog_);
    size_t last = 0;  // winners come grouped by device: the last bucket is usually the one
    for (const auto& w : catalog_.winners) {
      const auto d = device_index_.find(w.device_id);
      const auto k = kernel_index_.find(w.kernel_id);
      const auto p = problems.find(w.problem_id);
      if (d == device_index_.end() || k == kernel_index_.end() || p == problems.end()) {
        throw BuildError{"a winner refers to a device, kernel or problem that is not there"};
      }
      const db::Problem& prob = *p->second;
      last = bucket(d->second, prob, last);
      WinnerBucket& b = buckets_[last];
      Lists& l = lists_[b.lists].lists;
      read_catalogue(k->second);
      ShapeIndex::Entry entry{prob.m, prob.n, prob.k, k->second, w.median_ns,
                              snap_.kernels_[k->second].constraints};
      entry.group_size = prob.group_size;
      entry.heads = prob.heads;
      entry.kv_heads = prob.kv_heads;
      if (const auto run = ranked.find({w.device_id, w.problem_id}); run != ranked.end()) {
        entry.ranked_first = static_cast<uint32_t>(l.ranked.variants.size());
        entry.ranked_count = static_cast<uint32_t>(run->second.second);
        append_ranked(catalog_, run->second, kernel_index_, l.ranked.variants, l.ranked_ns);
      }
      b.entries.push_back(entry);
    }
  }

  // Each device's lists in the order first met, then its groups; a group refers to its lists
  // by index there.
  void index() {
    std::vector<uint32_t> list_index(lists_.size());
    for (size_t i = 0; i < lists_.size(); ++i) list_index[i] = index_lists(i);
    for (auto& b : buckets_) {
      ShapeIndex shapes(std::move(b.entries), ShapeIndex::axis_scale(b.key->op));
      snap_.devices_[b.device].groups.push_back(Group{b.key->op, b.key->dtype, b.key->group_size,
                                                      b.key->heads, b.key->kv_heads,
                                                      std::move(shapes), list_index[b.lists]});
    }
  }

  // Newest driver first, so "other driver" prefers the most recent tuning of the device.
  void sort_devices() {
    std::stable_sort(snap_.devices_.begin(), snap_.devices_.end(),
                     [](const Device& x, const Device& y) {
                       const DeviceQuery& a = x.fingerprint;
                       const DeviceQuery& b = y.fingerprint;
                       return std::tie(a.vendor_id, a.device_id, b.driver_version) <
                              std::tie(b.vendor_id, b.device_id, a.driver_version);
                     });
  }

 private:
  // tiles_[kernel] read from the catalogue, for the kernels a selection can name (winners and
  // the kernels heading a list), not for every stored kernel. A split one's tile and a head
  // group its stored constraints lack join its constraints, so every path of select() leaves
  // it out where it would not pay, or could not run.
  void read_catalogue(uint32_t kernel) {
    if (read_[kernel]) return;
    read_[kernel] = true;
    Kernel& k = snap_.kernels_[kernel];
    const CatalogueFacts facts = catalogue_facts(k.family, k.knobs_json);
    snap_.tiles_[kernel] = facts.output;
    if (facts.split.slices > 1) {
      k.constraints.split = snap_.constraints_[kernel].split = facts.split;
    }
    k.constraints.head_group_multiple = snap_.constraints_[kernel].head_group_multiple =
        std::max(k.constraints.head_group_multiple, facts.head_group_multiple);
  }

  // The index of the winner bucket of `prob` on `device` (created with its lists' bucket where
  // new); `last`: the one to try first.
  size_t bucket(uint32_t device, const db::Problem& prob, size_t last) {
    auto same = [&](const WinnerBucket& b) {
      return b.device == device && b.key->group_size == prob.group_size &&
             b.key->heads == prob.heads && b.key->kv_heads == prob.kv_heads &&
             b.key->op == prob.op && b.key->dtype == prob.dtype;
    };
    if (last < buckets_.size() && same(buckets_[last])) return last;
    last = static_cast<size_t>(std::find_if(buckets_.begin(), buckets_.end(), same) - buckets_.begin());
    if (last == buckets_.size()) {
      const auto same_lists = [&](const ListsBucket& l) {
        return l.device == device && l.key->op == prob.op && l.key->dtype == prob.dtype;
      };
      const size_t at = static_cast<size_t>(std::find_if(lists_.begin(), lists_.end(), same_lists) - lists_.begin());
      if (at == lists_.size()) lists_.push_back({device, &prob, {}});
      buckets_.push_back({device, &prob, {}, at});
    }
    return last;
  }

  // Indexes lists bucket `i` over its groups' entries and hands it to its device; returns its
  // index among the device's lists.
  uint32_t index_lists(size_t i) {
    ListsBucket& l = lists_[i];
    std::vector<ShapeIndex::Entry> entries;
    for (const WinnerBucket& b : buckets_) {
      if (b.lists == i) entries.insert(entries.end(), b.entries.begin(), b.entries.end());
    }
    if (!index_pickable(entries, l.lists.ranked, variant_of_)) {
      throw BuildError{"device '" + snap_.devices_[l.device].name + "', " + l.key->op +
                       ": more than " + std::to_string(kMaxPickable) +
                       " distinct variants head one op's ranked lists, or a list is longer than 65535"};
    }
    // The ranking reads the tiles of its candidates alone, the kernels heading a list.
    const RankedLists& ranked_lists = l.lists.ranked;
    for (size_t v = 0; v < ranked_lists.variants.size(); ++v) {
      if (ranked_lists.pick[v] != ranked_lists.pickable) read_catalogue(ranked_lists.variants[v].kernel);
    }
    std::vector<Lists>& owner = snap_.devices_[l.device].lists;
    owner.push_back(std::move(l.lists));
    return static_cast<uint32_t>(owner.size() - 1);
  }

  Snapshot& snap_;
  const db::Catalog& catalog_;
  std::unordered_map<int64_t, uint32_t> kernel_index_, device_index_;
  // The variant of each kernel index: a variant's versions (other shader sources) share one.
  std::vector<uint32_t> variant_of_;
  std::vector<bool> read_;
  std::vector<WinnerBucket> buckets_;
  std::vector<ListsBucket> lists_;
};

std::shared_ptr<const Snapshot> Snapshot::from_catalog(const db::Catalog& catalog,
                                                       std::string* error,
                                                       std::string_view source) noexcept {
  try {
    auto snap = std::make_shared<Snapshot>();
    snap->source_ = source;
    Builder build(*snap, catalog);
    build.add_kernels();
    build.add_devices();
    build.add_winners();
    build.index();
    build.sort_devices();
    return snap;
  } catch (const BuildError& e) {
    return fail(error, e.message);
  } catch (const std::exception& e) {
    return fail(error, e.what());
  } catch (...) {
    return fail(error, "unknown error while building the snapshot");
  }
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
