// Export of a database as the JSON document (version 2; db/json_io.h), and its text layout.
#include <cmath>
#include <nlohmann/json.hpp>
#include <optional>
#include <algorithm>
#include <string>
#include <string_view>
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

}  // namespace

json export_json(const Store& store, ExportScope scope, const SpirvSource& spirv_source) {
  const auto devices = store.devices();
  auto kernels = store.kernels();
  auto problems = store.problems();
  auto runs = store.runs();
  const auto winners = store.best();
  const auto stored_ranked = store.catalog(/*with_spirv=*/false).ranked;
  const auto pickable = answer_kernels(winners, stored_ranked);
  const auto ranked = scope == ExportScope::winners
                          ? scoring_rows_by_variant(stored_ranked, kernels, pickable)
                          : stored_ranked;
  auto measurements = store.measurements();
  if (scope == ExportScope::winners) {
    // Only what the winners and the ranked rows refer to; imported, it gives the same `best`
    // rows. The ranked rows' measurements stay out (their kernels are what a runtime needs,
    // the rows carry the times): re-imported, the document ranks its winners alone.
    std::unordered_set<int64_t> kernel_ids, problem_ids, run_ids, measurement_ids;
    for (const auto& w : winners) measurement_ids.insert(w.measurement_id);
    // A winner need not be in its problem's ranked rows (those prefer the reference run's times).
    for (const auto* rows : {&winners, &ranked}) {
      for (const auto& w : *rows) {
        kernel_ids.insert(w.kernel_id);
        problem_ids.insert(w.problem_id);
        run_ids.insert(w.run_id);
      }
    }
    std::erase_if(kernels, [&](const KernelRecord& k) { return !kernel_ids.count(k.id); });
    std::erase_if(problems, [&](const Problem& p) { return !problem_ids.count(p.id); });
    std::erase_if(runs, [&](const RunRecord& r) { return !run_ids.count(r.id); });
    std::erase_if(measurements,
                  [&](const Measurement& m) { return !measurement_ids.count(m.id); });
    for (KernelRecord& k : kernels) {
      if (!pickable.count(k.id)) {
        k.spirv.reset();
      } else if (!k.spirv && spirv_source) {
        k.spirv = spirv_source(k);
      }
    }
  }
  // Rows refer to entries by their position in the sections written here.
  const auto device_index = index_of(devices);
  const auto kernel_index = index_of(kernels);
  const auto problem_index = index_of(problems);
  const auto run_index = index_of(runs);

  json doc = {{"format", "vktune-db"}, {"version", kJsonFormatVersion}};
  json& jd = doc["devices"] = json::array();
  for (const auto& d : devices) {
    json o = device_ref(d);
    o["driver_version_text"] = d.driver_version_text;
    o["driver_info"] = d.driver_info;
    o["api_version"] = d.api_version;
    o["device_type"] = d.device_type;
    o["subgroup_size"] = d.subgroup_size;
    o["properties_json"] = d.properties_json;
    o["copy_bandwidth_gbps"] = nullable(d.copy_bandwidth_gbps);
    jd.push_back(std::move(o));
  }
  json& jk = doc["kernels"] = json::array();
  for (const auto& k : kernels) {
    jk.push_back({{"variant_key", k.variant_key}, {"source_hash", k.source_hash},
                  {"family", k.family}, {"knobs_json", k.knobs_json},
                  {"constraints_json", k.constraints_json}, {"layout", k.layout},
                  {"workgroup_size", k.workgroup_size},
                  {"spirv", k.spirv ? json(base64_encode(*k.spirv)) : json(nullptr)}});
  }
  json& jp = doc["problems"] = json::array();
  for (const auto& p : problems) jp.push_back(problem_ref(p));
  json& jr = doc["runs"] = json::array();
  for (const auto& r : runs) {
    jr.push_back({{"uuid", r.uuid}, {"started_at", r.started_at},
                  {"ended_at", r.ended_at ? json(*r.ended_at) : json(nullptr)},
                  {"strategy", r.strategy}, {"tool_version", r.tool_version}, {"host", r.host},
                  {"cache_mode", r.cache_mode}});
  }
  json& columns = doc["columns"] = json::object();
  columns["measurements"] = column_names(kMeasurementColumns);
  json& jm = doc["measurements"] = json::array();
  for (const auto& m : measurements) {
    json row = json::array();
    row.get_ref<json::array_t&>().reserve(kMeasurementColumnCount);
    row.push_back(run_index.at(m.run_id));
    row.push_back(device_index.at(m.device_id));
    row.push_back(problem_index.at(m.problem_id));
    row.push_back(kernel_index.at(m.kernel_id));
    row.push_back(to_string(m.status));
    row.push_back(m.n);
    for (const auto* v : {&m.median_ns, &m.min_ns, &m.p10_ns, &m.p90_ns, &m.max_error, &m.gbps,
                          &m.gflops}) {
      row.push_back(nullable(*v));
    }
    row.push_back(m.message);
    jm.push_back(std::move(row));
  }
  // The winners' part leaves coverage out: it holds one measurement per problem, so records of
  // how many variants each run measured would describe results it does not carry, and its
  // reader, the runtime, only picks winners. A report of an imported winners file then shows
  // coverage as unknown, not as a count its own measurements contradict.
  if (scope == ExportScope::all) {
    columns["coverage"] = column_names(kCoverageColumns);
    json& jc = doc["coverage"] = json::array();
    for (const auto& c : store.coverage()) {
      jc.push_back(json::array({run_index.at(c.run_id), device_index.at(c.device_id),
                                problem_index.at(c.problem_id), c.legal, c.measured,
                                c.budget_cut, c.stages}));
    }
  }
  // Winners and, for the runtime's ranking of untuned shapes, each problem's fastest
  // variants (Catalog::ranked): rows of the same columns.
  for (const auto& [section, rows] : {std::pair{"winners", &winners}, std::pair{"ranked", &ranked}}) {
    columns[section] = column_names(kWinnerColumns);
    json& out = doc[section] = json::array();
    for (const auto& w : *rows) {
      out.push_back(json::array({device_index.at(w.device_id), problem_index.at(w.problem_id),
                                 kernel_index.at(w.kernel_id), run_index.at(w.run_id),
                                 w.median_ns}));
    }
  }
  return doc;
}

std::string export_json_text(const Store& store, int indent, ExportScope scope,
                             const SpirvSource& spirv_source) {
  return render(export_json(store, scope, spirv_source), indent);
}

}  // namespace vktune::db
