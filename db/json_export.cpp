// Export of a database as the JSON document (db/json_io.h: version 3 where a kernel has
// specialisation constants, else 2), and its text layout.
#include <algorithm>
#include <array>
#include <charconv>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "db/base64.h"
#include "db/json_columns.h"
#include "db/json_io.h"
#include "db/store.h"

namespace vktune::db {
namespace {

using nlohmann::json;
using namespace json_columns;

json device_ref(const DeviceRecord& d) {
  return {{"vendor_id", d.vendor_id}, {"device_id", d.device_id}, {"driver_id", d.driver_id},
          {"driver_version", d.driver_version}, {"pipeline_cache_uuid", d.pipeline_cache_uuid},
          {"name", d.name}};
}
json problem_ref(const Problem& p) {
  json j = {{"op", p.op}, {"dtype", p.dtype}, {"m", p.m}, {"n", p.n}, {"k", p.k},
            {"group_size", p.group_size}};
  // sdpa only, so the other ops' documents read as before the fields existed.
  if (p.heads != 0 || p.kv_heads != 0) {
    j["heads"] = p.heads;
    j["kv_heads"] = p.kv_heads;
  }
  return j;
}
json nullable(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }

// `e` to 3 significant digits: the double nearest that decimal, which the JSON writer prints as
// that decimal (it prints the shortest text that reads back), so a re-export of an import writes
// the same text.
//
// What each measured number needs: a max_error (worst |gpu - reference| over its bound) was
// compared with 1 by the gate when the row was measured and nothing compares it again, so its
// digits past the third tell no reader anything (the H200's full export: 1.78 MB with them, 1.68
// MB without). Times stay exact: every ranking of variants (`best`, the ranked lists) orders by
// them, and times rounded to a tenth of the devices' 1 ns tick would tie variants the exact ones
// tell apart, so a re-import would rank those in another order; exact, they cost 4% (1.68 MB
// against 1.61 MB rounded).
double error_ratio(double e) {
  std::array<char, 32> text;
  const auto [end, error] =
      std::to_chars(text.data(), text.data() + text.size(), e, std::chars_format::scientific, 2);
  double out = e;
  if (error == std::errc()) std::from_chars(text.data(), end, out);
  return out;
}

// Index of each row id in `rows` (the order the export writes them in).
template <typename Record>
std::unordered_map<int64_t, size_t> index_of(const std::vector<Record>& rows) {
  std::unordered_map<int64_t, size_t> out;
  for (size_t i = 0; i < rows.size(); ++i) out.emplace(rows[i].id, i);
  return out;
}

// export_json_text's layout (see there): `doc` is an export_json document.
std::string render(const json& doc, int indent) {
  const bool pretty = indent >= 0;
  const std::string pad1(pretty ? indent : 0, ' ');
  const std::string pad2(pretty ? 2 * indent : 0, ' ');
  const char* colon = pretty ? ": " : ":";
  // An entry object expanded at the second level: its own dump, every line shifted by pad2.
  auto nested = [&](const json& v) {
    if (!pretty || !v.is_object()) return v.dump();
    std::string text = v.dump(indent);
    std::string out;
    out.reserve(text.size() + text.size() / 8);
    for (char ch : text) {
      out += ch;
      if (ch == '\n') out += pad2;  // strings escape their newlines: every '\n' is layout
    }
    return out;
  };
  std::string out = "{";
  bool first = true;
  for (auto it = doc.begin(); it != doc.end(); ++it) {
    out += first ? "\n" : ",\n";
    first = false;
    out += pad1 + json(it.key()).dump() + colon;
    const json& v = it.value();
    if (v.empty() || !v.is_structured()) {
      out += v.dump();
      continue;
    }
    // Sections (and the column headers): one member or element a line.
    out += v.is_object() ? "{\n" : "[\n";
    bool first_item = true;
    for (auto item = v.begin(); item != v.end(); ++item) {
      if (!first_item) out += ",\n";
      first_item = false;
      out += pad2;
      if (v.is_object()) out += json(item.key()).dump() + colon;
      out += nested(item.value());
    }
    out += "\n" + pad1 + (v.is_object() ? "}" : "]");
  }
  out += "\n}";
  return out;
}

// The ranked rows a winners export writes: past each list's pickable head, where a runtime only
// scores by variant (every version of one variant reads as one, runtime/rank.h), each variant is
// named by one of its stored versions, an answer kernel where there is one, else the newest. A
// list may then name a kernel twice, as it named two versions of its variant before; the
// ranking counts its first place either way, and the rows stay, so each list's length and last
// time (what an absent variant is charged) do not change. Without it the H100's winners file
// listed every shader version any list ever measured, most of its kernels.
std::vector<BestRow> scoring_rows_by_variant(const std::vector<BestRow>& ranked,
                                             const std::vector<KernelRecord>& kernels,
                                             const std::unordered_set<int64_t>& pickable) {
  std::unordered_map<int64_t, const KernelRecord*> by_id;
  for (const auto& k : kernels) by_id.emplace(k.id, &k);
  std::unordered_map<std::string_view, int64_t> version;  // by variant key
  auto prefer = [&](int64_t id) {
    const KernelRecord& k = *by_id.at(id);
    auto [it, added] = version.emplace(k.variant_key, id);
    if (added || it->second == id) return;
    const bool answer = pickable.count(id) != 0, held_answer = pickable.count(it->second) != 0;
    if (answer > held_answer || (answer == held_answer && id > it->second)) it->second = id;
  };
  for (const auto& r : ranked) prefer(r.kernel_id);

  std::vector<BestRow> out;
  out.reserve(ranked.size());
  const std::vector<size_t> places = places_in_lists(ranked);
  for (size_t i = 0; i < ranked.size(); ++i) {
    BestRow& row = out.emplace_back(ranked[i]);
    if (places[i] >= kRankedPickable) row.kernel_id = version.at(by_id.at(row.kernel_id)->variant_key);
  }
  return out;
}

// What an export writes, read from the store.
struct Rows {
  std::vector<DeviceRecord> devices;
  std::vector<KernelRecord> kernels;
  std::vector<Problem> problems;
  std::vector<RunRecord> runs;
  std::vector<BestRow> winners, ranked;
  std::vector<Measurement> measurements;
};

// Only what the winners and the ranked rows refer to; imported, it gives the same `best` rows.
// The ranked rows' measurements stay out (their kernels are what a runtime needs, the rows
// carry the times): re-imported, the document ranks its winners alone. The kernels a runtime
// can answer with carry their SPIR-V, from `spirv_source` where the store has none.
void keep_winners_part(Rows& rows, const SpirvSource& spirv_source) {
  const auto pickable = answer_kernels(rows.winners, rows.ranked);
  rows.ranked = scoring_rows_by_variant(rows.ranked, rows.kernels, pickable);
  std::unordered_set<int64_t> kernel_ids, problem_ids, run_ids, measurement_ids;
  for (const auto& w : rows.winners) measurement_ids.insert(w.measurement_id);
  // A winner need not be in its problem's ranked rows (those prefer the reference run's times).
  for (const auto* best : {&rows.winners, &rows.ranked}) {
    for (const auto& w : *best) {
      kernel_ids.insert(w.kernel_id);
      problem_ids.insert(w.problem_id);
      run_ids.insert(w.run_id);
    }
  }
  std::erase_if(rows.kernels, [&](const KernelRecord& k) { return !kernel_ids.count(k.id); });
  std::erase_if(rows.problems, [&](const Problem& p) { return !problem_ids.count(p.id); });
  std::erase_if(rows.runs, [&](const RunRecord& r) { return !run_ids.count(r.id); });
  std::erase_if(rows.measurements,
                [&](const Measurement& m) { return !measurement_ids.count(m.id); });
  for (KernelRecord& k : rows.kernels) {
    if (!pickable.count(k.id)) {
      k.spirv.reset();
    } else if (!k.spirv && spirv_source) {
      spirv_source(k);
    }
  }
}

json device_entry(const DeviceRecord& d) {
  json o = device_ref(d);
  o["driver_version_text"] = d.driver_version_text;
  o["driver_info"] = d.driver_info;
  o["api_version"] = d.api_version;
  o["device_type"] = d.device_type;
  o["subgroup_size"] = d.subgroup_size;
  o["properties_json"] = d.properties_json;
  o["copy_bandwidth_gbps"] = nullable(d.copy_bandwidth_gbps);
  return o;
}

json kernel_entry(const KernelRecord& k) {
  json o = {{"variant_key", k.variant_key}, {"source_hash", k.source_hash},
            {"family", k.family}, {"knobs_json", k.knobs_json},
            {"constraints_json", k.constraints_json}, {"layout", k.layout},
            {"workgroup_size", k.workgroup_size},
            {"spirv", k.spirv ? json(base64_encode(*k.spirv)) : json(nullptr)}};
  // Only where there are some: a kernel without the field has none, as every kernel of the
  // documents written before it existed.
  if (k.specialised()) o["specialization_json"] = k.specialization_json;
  return o;
}

json run_entry(const RunRecord& r) {
  return {{"uuid", r.uuid}, {"started_at", r.started_at},
          {"ended_at", r.ended_at ? json(*r.ended_at) : json(nullptr)},
          {"strategy", r.strategy}, {"tool_version", r.tool_version}, {"host", r.host},
          {"cache_mode", r.cache_mode}};
}

// Rows refer to entries by their position in the sections written.
struct Indexes {
  std::unordered_map<int64_t, size_t> device, kernel, problem, run;
};

json measurement_row(const Measurement& m, const Indexes& at) {
  json row = json::array();
  row.get_ref<json::array_t&>().reserve(kMeasurementColumnCount);
  row.push_back(at.run.at(m.run_id));
  row.push_back(at.device.at(m.device_id));
  row.push_back(at.problem.at(m.problem_id));
  row.push_back(at.kernel.at(m.kernel_id));
  row.push_back(to_string(m.status));
  row.push_back(m.n);
  for (const auto* ns : {&m.median_ns, &m.min_ns, &m.p10_ns, &m.p90_ns}) {
    row.push_back(nullable(*ns));
  }
  row.push_back(m.max_error ? json(error_ratio(*m.max_error)) : json(nullptr));
  // GB/s and GFLOP/s follow from the problem, the kernel's layout and the median: the import
  // derives them (json_columns.h).
  row.push_back(m.message);
  return row;
}

template <typename Record, typename Entry>
json section(const std::vector<Record>& records, Entry entry) {
  json out = json::array();
  for (const Record& r : records) out.push_back(entry(r));
  return out;
}

}  // namespace

json export_json(const Store& store, ExportScope scope, const SpirvSource& spirv_source) {
  Rows rows{store.devices(), store.kernels(), store.problems(), store.runs(), store.best(),
            store.catalog(/*with_spirv=*/false).ranked, store.measurements()};
  if (scope == ExportScope::winners) keep_winners_part(rows, spirv_source);
  const Indexes at{index_of(rows.devices), index_of(rows.kernels), index_of(rows.problems),
                   index_of(rows.runs)};

  const bool specialised = std::ranges::any_of(rows.kernels, &KernelRecord::specialised);
  json doc = {{"format", "vktune-db"},
              {"version", specialised ? kJsonFormatVersion : kJsonUnspecialisedVersion}};
  doc["devices"] = section(rows.devices, device_entry);
  doc["kernels"] = section(rows.kernels, kernel_entry);
  doc["problems"] = section(rows.problems, problem_ref);
  doc["runs"] = section(rows.runs, run_entry);
  json& columns = doc["columns"] = json::object();
  columns["measurements"] = column_names(kMeasurementColumns);
  doc["measurements"] =
      section(rows.measurements, [&](const Measurement& m) { return measurement_row(m, at); });
  // The winners' part leaves coverage out: it holds one measurement per problem, so records of
  // how many variants each run measured would describe results it does not carry, and its
  // reader, the runtime, only picks winners. A report of an imported winners file then shows
  // coverage as unknown, not as a count its own measurements contradict.
  if (scope == ExportScope::all) {
    columns["coverage"] = column_names(kCoverageColumns);
    doc["coverage"] = section(store.coverage(), [&](const Coverage& c) {
      return json::array({at.run.at(c.run_id), at.device.at(c.device_id),
                          at.problem.at(c.problem_id), c.legal, c.measured, c.budget_cut,
                          c.stages});
    });
  }
  // Winners and, for the runtime's ranking of untuned shapes, each problem's fastest
  // variants (Catalog::ranked): rows of the same columns.
  for (const auto& [name, best] :
       {std::pair{"winners", &rows.winners}, std::pair{"ranked", &rows.ranked}}) {
    columns[name] = column_names(kWinnerColumns);
    doc[name] = section(*best, [&](const BestRow& w) {
      return json::array({at.device.at(w.device_id), at.problem.at(w.problem_id),
                          at.kernel.at(w.kernel_id), at.run.at(w.run_id), w.median_ns});
    });
  }
  return doc;
}

std::string export_json_text(const Store& store, int indent, ExportScope scope,
                             const SpirvSource& spirv_source) {
  return render(export_json(store, scope, spirv_source), indent);
}

}  // namespace vktune::db
