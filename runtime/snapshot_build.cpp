// Snapshot::from_catalog: a catalog's kernels, devices, winners and ranked lists indexed per
// device and per (op, dtype, group size, head counts), once, at load.
#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <unordered_map>

#include "db/specialization_text.h"
#include "db/spirv_check.h"
#include "kernels/constraints_json.h"
#include "kernels/family.h"
#include "runtime/snapshot_parts.h"
#include "runtime/stored_device.h"

namespace vktune::runtime {
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

// The specialisation constants stored with the kernel's SPIR-V, which a pipeline made from it
// must be given.
Specialization parse_specialization(const std::string& text, const std::string& key) {
  db::SpecTextError error;
  const auto pairs = db::parse_specialization_text(text, &error);
  if (!pairs) {
    throw BuildError{"kernel '" + key + "': specialization_json" + error.where + ": " + error.why};
  }
  Specialization out;
  out.reserve(pairs->size());
  for (const db::SpecPair& p : *pairs) out.push_back({p.constant_id, p.value});
  return out;
}

// The variant's output tile, the tile its K split hands over and its constraints, as this
// runtime's catalogue describes them; none for a family or knobs it does not know (a database
// from another version): the ranking then leaves its padding out, and no split or catalogue
// rule applies. (A database stored before a bound existed lacks it, and an answer may now come
// from another head count or head dim.)
struct CatalogueFacts {
  kernels::OutputTile output;
  Constraints constraints;
};
CatalogueFacts catalogue_facts(const std::string& family, const std::string& knobs_json) {
  const kernels::Family* f = kernels::find_family(family);
  if (f == nullptr) return {};
  const auto knobs = nlohmann::json::parse(knobs_json, nullptr, false);
  if (!knobs.is_object()) return {};
  try {
    const kernels::Knobs k = f->knobs_from_json(knobs);
    return {f->output_tile(k), f->constraints(k)};
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
                                      servable_spirv(k.spirv),
                                      parse_specialization(k.specialization_json, k.variant_key)});
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
  // the kernels heading a list), not for every stored kernel. A split one's tile and the bounds
  // its stored constraints lack (head groups, a shortest head dim or context, fewest query rows,
  // a split's tiles and k-steps, a power-of-two group size) join its constraints, so every path of
  // select() leaves it out where it would not pay, or could not run.
  void read_catalogue(uint32_t kernel) {
    if (read_[kernel]) return;
    read_[kernel] = true;
    Kernel& k = snap_.kernels_[kernel];
    const CatalogueFacts facts = catalogue_facts(k.family, k.knobs_json);
    snap_.tiles_[kernel] = facts.output;
    Constraints& c = k.constraints;
    const Constraints& from = facts.constraints;
    if (from.split.slices > 1) c.split = from.split;
    c.head_group_multiple = std::max(c.head_group_multiple, from.head_group_multiple);
    c.k_min = std::max(c.k_min, from.k_min);
    c.gs_power_of_two = c.gs_power_of_two || from.gs_power_of_two;
    c.query_rows_min = std::max(c.query_rows_min, from.query_rows_min);
    c.n_min = std::max(c.n_min, from.n_min);
    if (c.head_group_max == 0) c.head_group_max = from.head_group_max;
    if (c.split_tile_rows == 0) c.split_tile_rows = from.split_tile_rows;
    snap_.constraints_[kernel] = c;
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

}  // namespace vktune::runtime
