// Import of the JSON document (versions 1 to 3) and the runtime's catalogue from it. Parsing is
// strict: every field is checked with its path. Export: json_export.cpp.
#include "db/json_io.h"

#include <nlohmann/json.hpp>
#include <optional>
#include <unordered_map>
#include <vector>

#include "db/base64.h"
#include "db/error.h"
#include "db/json_columns.h"
#include "db/json_ranked.h"
#include "db/json_reader.h"
#include "db/specialization_text.h"
#include "db/spirv_check.h"

namespace vktune::db {
namespace {

using namespace json_columns;
using namespace json_read;

// Natural keys as flat strings; '\x1f' cannot appear in any validated numeric field and
// separates the text fields unambiguously enough for lookups inside one document.
std::string device_key(const DeviceRecord& d) {
  return std::to_string(d.vendor_id) + '\x1f' + std::to_string(d.device_id) + '\x1f' +
         std::to_string(d.driver_id) + '\x1f' + std::to_string(d.driver_version) + '\x1f' +
         d.pipeline_cache_uuid + '\x1f' + d.name;
}
std::string kernel_key(const KernelRecord& k) { return k.variant_key + '\x1f' + k.source_hash; }
std::string problem_key(const Problem& p) {
  return p.op + '\x1f' + p.dtype + '\x1f' + std::to_string(p.m) + '\x1f' + std::to_string(p.n) +
         '\x1f' + std::to_string(p.k) + '\x1f' + std::to_string(p.group_size) + '\x1f' +
         std::to_string(p.heads) + '\x1f' + std::to_string(p.kv_heads);
}

DeviceRecord parse_device(const Reader& r, const json& o, const std::string& path) {
  DeviceRecord d;
  d.vendor_id = r.u32(o, path, "vendor_id");
  d.device_id = r.u32(o, path, "device_id");
  d.name = r.str(o, path, "name");
  d.driver_id = r.u32(o, path, "driver_id");
  d.driver_version = r.u32(o, path, "driver_version");
  d.pipeline_cache_uuid = r.str(o, path, "pipeline_cache_uuid");
  return d;
}
DeviceRecord parse_full_device(const Reader& r, const json& o, const std::string& path) {
  DeviceRecord d = parse_device(r, o, path);
  d.driver_version_text = r.str(o, path, "driver_version_text");
  d.driver_info = r.str(o, path, "driver_info");
  d.api_version = r.u32(o, path, "api_version");
  d.device_type = r.str(o, path, "device_type");
  d.subgroup_size = r.u32(o, path, "subgroup_size");
  d.properties_json = r.json_text(o, path, "properties_json");
  d.copy_bandwidth_gbps = r.opt_num(o, path, "copy_bandwidth_gbps");
  return d;
}
KernelRecord parse_kernel(const Reader& r, const json& o, const std::string& path) {
  KernelRecord k;
  k.variant_key = r.str(o, path, "variant_key");
  k.source_hash = r.str(o, path, "source_hash");
  return k;
}
// A variant's stored constraints as the runtime reads them (runtime/selection.h): an object
// whose "..._multiple" fields are at least 1 (a multiple of 0 constrains nothing, so it is a
// writer's mistake, not a constraint).
void check_constraints(const Reader& r, const std::string& text, const std::string& path) {
  const json c = json::parse(text, nullptr, false);
  if (!c.is_object()) r.fail(path, "is not a JSON object");
  for (const auto& [name, value] : c.items()) {
    if (!name.ends_with("_multiple")) continue;
    const std::string at_name = path + "." + name;
    if (r.u32_value(value, at_name) == 0) r.fail(at_name, "is 0; a multiple is at least 1");
  }
}

// A kernel's specialisation as the runtime reads it (db/specialization_text.h).
void check_specialization(const Reader& r, const std::string& text, const std::string& path) {
  SpecTextError error;
  if (!parse_specialization_text(text, &error)) r.fail(path + error.where, error.why);
}

// Refuses kernel `k` at `path` when the runtime could not run it: no invocations, a multiple
// of 0, SPIR-V that is no module or that `check` (where given) refuses. A document's kernels
// and an SQLite database's (check_rows) go through this one rule.
void check_kernel(const Reader& r, const KernelRecord& k, const std::string& path,
                  const SpirvCheck& check) {
  if (k.workgroup_size == 0) r.fail(path + ".workgroup_size", "is 0; a variant runs at least one invocation");
  check_constraints(r, k.constraints_json, path + ".constraints_json");
  check_specialization(r, k.specialization_json, path + ".specialization_json");
  if (!k.spirv) return;
  std::string why = spirv_problem(*k.spirv);
  if (why.empty() && check) why = check(*k.spirv);
  if (!why.empty()) r.fail(path + ".spirv", why);
}

KernelRecord parse_full_kernel(const Reader& r, const json& o, const std::string& path,
                               const SpirvCheck& check) {
  KernelRecord k = parse_kernel(r, o, path);
  k.family = r.str(o, path, "family");
  k.knobs_json = r.json_text(o, path, "knobs_json");
  k.constraints_json = r.json_text(o, path, "constraints_json");
  k.layout = r.str(o, path, "layout");
  k.workgroup_size = r.u32(o, path, "workgroup_size");
  if (auto b64 = r.opt_str(o, path, "spirv")) {
    auto bytes = base64_decode(*b64);
    if (!bytes) r.fail(path + ".spirv", "is not valid base64");
    k.spirv = std::move(*bytes);
  }
  // Absent in the files written before kernels had specialisation constants: none.
  if (r.present(o, "specialization_json")) {
    k.specialization_json = r.json_text(o, path, "specialization_json");
  }
  check_kernel(r, k, path, check);
  return k;
}
// Refuses `p` at `path` when `check` (where given) says why the runtime could not answer for it.
void check_problem(const Reader& r, const ProblemCheck& check, const Problem& p,
                   const std::string& path) {
  if (!check) return;
  if (const std::string why = check(p); !why.empty()) r.fail(path, why);
}
Problem parse_problem(const Reader& r, const json& o, const std::string& path) {
  Problem p;
  p.op = r.str(o, path, "op");
  p.dtype = r.str(o, path, "dtype");
  p.m = r.u32(o, path, "m");
  p.n = r.u32(o, path, "n");
  p.k = r.u32(o, path, "k");
  p.group_size = r.u32(o, path, "group_size");
  // Absent (0) for the ops without heads, and in documents written before sdpa existed.
  if (o.contains("heads")) p.heads = r.u32(o, path, "heads");
  if (o.contains("kv_heads")) p.kv_heads = r.u32(o, path, "kv_heads");
  return p;
}
RunRecord parse_run(const Reader& r, const json& o, const std::string& path) {
  RunRecord run;
  run.uuid = r.str(o, path, "uuid");
  if (run.uuid.empty()) r.fail(path + ".uuid", "is empty");
  run.started_at = r.str(o, path, "started_at");
  run.ended_at = r.opt_str(o, path, "ended_at");
  run.strategy = r.str(o, path, "strategy");
  run.tool_version = r.str(o, path, "tool_version");
  run.host = r.str(o, path, "host");
  run.cache_mode = r.str(o, path, "cache_mode");
  return run;
}

// The document's entry sections, in document order (both versions write them alike).
struct Sections {
  std::vector<DeviceRecord> devices;
  std::vector<KernelRecord> kernels;
  std::vector<Problem> problems;
  std::vector<RunRecord> runs;
};

Sections parse_sections(const Reader& r, const json& doc, const ImportChecks& checks) {
  Sections s;
  const json& jd = r.array(doc, "devices");
  for (size_t i = 0; i < jd.size(); ++i) s.devices.push_back(parse_full_device(r, jd[i], at("devices", i)));
  const json& jk = r.array(doc, "kernels");
  for (size_t i = 0; i < jk.size(); ++i) {
    s.kernels.push_back(parse_full_kernel(r, jk[i], at("kernels", i), checks.spirv));
  }
  const json& jp = r.array(doc, "problems");
  for (size_t i = 0; i < jp.size(); ++i) {
    s.problems.push_back(parse_problem(r, jp[i], at("problems", i)));
    check_problem(r, checks.problem, s.problems.back(), at("problems", i));
  }
  const json& jr = r.array(doc, "runs");
  for (size_t i = 0; i < jr.size(); ++i) s.runs.push_back(parse_run(r, jr[i], at("runs", i)));
  return s;
}

// Version 1: natural key -> index in its section (of the last entry with that key; entries
// with one key are one database row).
struct KeyIndex {
  std::unordered_map<std::string, size_t> devices, kernels, problems, runs;

  KeyIndex(const std::vector<DeviceRecord>& d, const std::vector<KernelRecord>& k,
           const std::vector<Problem>& p, const std::vector<std::string>& run_uuids) {
    for (size_t i = 0; i < d.size(); ++i) devices[device_key(d[i])] = i;
    for (size_t i = 0; i < k.size(); ++i) kernels[kernel_key(k[i])] = i;
    for (size_t i = 0; i < p.size(); ++i) problems[problem_key(p[i])] = i;
    for (size_t i = 0; i < run_uuids.size(); ++i) runs[run_uuids[i]] = i;
  }
};

// Resolves a version 1 reference through a key map built from the document's own section.
size_t resolve(const Reader& r, const std::unordered_map<std::string, size_t>& index,
               const std::string& key, const std::string& path, const char* section) {
  const auto it = index.find(key);
  if (it == index.end()) r.fail(path, std::string("refers to an entry missing from '") + section + "'");
  return it->second;
}

// A row's run, device and problem (measurements and coverage rows) as indices into the
// document's sections.
struct RowRefs {
  size_t run = 0, device = 0, problem = 0;
};

RowRefs parse_refs_v1(const Reader& r, const KeyIndex& keys, const json& o,
                      const std::string& path) {
  const std::string run = r.str(o, path, "run");
  const std::string device =
      device_key(parse_device(r, r.field(o, path, "device"), path + ".device"));
  const std::string problem =
      problem_key(parse_problem(r, r.field(o, path, "problem"), path + ".problem"));
  return {resolve(r, keys.runs, run, path + ".run", "runs"),
          resolve(r, keys.devices, device, path + ".device", "devices"),
          resolve(r, keys.problems, problem, path + ".problem", "problems")};
}
size_t parse_kernel_ref_v1(const Reader& r, const KeyIndex& keys, const json& o,
                           const std::string& path) {
  const std::string key = kernel_key(parse_kernel(r, r.field(o, path, "kernel"), path + ".kernel"));
  return resolve(r, keys.kernels, key, path + ".kernel", "kernels");
}

Coverage parse_coverage_v1(const Reader& r, const json& o, const std::string& path) {
  Coverage c;
  c.legal = r.u32(o, path, "legal");
  c.measured = r.u32(o, path, "measured");
  const json& stages = r.field(o, path, "stages");
  if (!stages.is_array())
    r.fail(path + ".stages", std::string("expected an array, got ") + stages.type_name());
  for (size_t i = 0; i < stages.size(); ++i)
    c.stages.push_back(r.u32_value(stages[i], at(path + ".stages", i)));
  c.budget_cut = r.boolean(o, path, "budget_cut");
  return c;
}

// Returns the document's version.
uint32_t check_header(const Reader& r, const json& doc) {
  if (!doc.is_object()) r.fail("document", std::string("expected an object, got ") + doc.type_name());
  if (r.str(doc, "document", "format") != "vktune-db") {
    r.fail("document.format", "is not \"vktune-db\"");
  }
  const uint32_t version = r.u32(doc, "document", "version");
  if (version < kJsonOldestReadVersion || version > kJsonFormatVersion) {
    r.fail("document.version", std::to_string(version) + " is not supported (this vktune reads " +
                                   std::to_string(kJsonOldestReadVersion) + " to " +
                                   std::to_string(kJsonFormatVersion) + ")");
  }
  return version;
}

json parse_text(std::string_view text, const std::string& label) {
  try {
    return json::parse(text);
  } catch (const json::exception& e) {
    throw Error(label + ": not valid JSON: " + e.what());
  }
}

// A measurement parsed, its row ids still to be set from the written sections.
struct PendingMeasurement {
  RowRefs refs;
  size_t kernel = 0;
  Measurement m;
};

PendingMeasurement parse_measurement_v1(const Reader& r, const KeyIndex& keys, const json& o,
                                        const std::string& path) {
  PendingMeasurement p;
  p.refs = parse_refs_v1(r, keys, o, path);
  p.kernel = parse_kernel_ref_v1(r, keys, o, path);
  const auto status = parse_status(r.str(o, path, "status"));
  if (!status) r.fail(path + ".status", "is not a known status");
  p.m.status = *status;
  p.m.message = r.str(o, path, "message");
  p.m.n = r.u32(o, path, "n");
  p.m.median_ns = r.opt_num(o, path, "median_ns");
  if (p.m.status == Status::ok && !p.m.median_ns) r.fail(path + ".median_ns", "missing for an ok result");
  p.m.min_ns = r.opt_num(o, path, "min_ns");
  p.m.p10_ns = r.opt_num(o, path, "p10_ns");
  p.m.p90_ns = r.opt_num(o, path, "p90_ns");
  p.m.max_error = r.opt_num(o, path, "max_error");
  p.m.gbps = r.opt_num(o, path, "gbps");
  p.m.gflops = r.opt_num(o, path, "gflops");
  if (const TimingError e = timing_error(p.m)) r.fail(path + "." + e.column, e.what);
  return p;
}

// `with_rates`: the row has the columns kMeasurementColumnsWithRates, else kMeasurementColumns.
PendingMeasurement parse_measurement(const Row& row, const SectionSizes& sizes, bool with_rates) {
  PendingMeasurement p;
  p.refs = {row.index(m_run, sizes.runs), row.index(m_device, sizes.devices),
            row.index(m_problem, sizes.problems)};
  p.kernel = row.index(m_kernel, sizes.kernels);
  const std::string status_name = row.str(m_status);
  const auto status = parse_status(status_name);
  if (!status) row.fail(m_status, json(status_name).dump() + " is not a known status");
  p.m.status = *status;
  p.m.n = row.u32(m_n);
  p.m.median_ns = row.opt_num(m_median_ns);
  if (p.m.status == Status::ok && !p.m.median_ns)
    row.fail(m_median_ns, "null for an ok result");
  p.m.min_ns = row.opt_num(m_min_ns);
  p.m.p10_ns = row.opt_num(m_p10_ns);
  p.m.p90_ns = row.opt_num(m_p90_ns);
  p.m.max_error = row.opt_num(m_max_error);
  if (with_rates) {
    p.m.gbps = row.opt_num(mr_gbps);
    p.m.gflops = row.opt_num(mr_gflops);
  }
  // Both enumerators index one row: the message sits after the rates where a row has them.
  p.m.message = row.str(with_rates ? size_t{mr_message} : size_t{m_message});
  if (const TimingError e = timing_error(p.m)) row.fail(column_index(kMeasurementColumns, e.column), e.what);
  return p;
}

// Fills in the rates of measurements whose document leaves them out (json_io.h).
void derive_rates(std::vector<PendingMeasurement>& pending, const Sections& sections,
                  const RateSource& rates) {
  if (!rates) return;
  for (PendingMeasurement& p : pending) {
    if (!p.m.median_ns) continue;
    const auto r =
        rates(sections.problems[p.refs.problem], sections.kernels[p.kernel], *p.m.median_ns);
    if (!r) continue;
    p.m.gbps = r->gbps;
    p.m.gflops = r->gflops;
  }
}

// `keys`: a version 1 document's, whose rows name their device, kernel and problem by key.
std::vector<PendingMeasurement> parse_measurements(const Reader& r, const json& doc,
                                                   const KeyIndex* keys, const Sections& sections,
                                                   const SectionSizes& sizes,
                                                   const RateSource& rates) {
  std::vector<PendingMeasurement> pending;
  const json& jm = r.array(doc, "measurements");
  pending.reserve(jm.size());
  if (keys != nullptr) {
    for (size_t i = 0; i < jm.size(); ++i) {
      pending.push_back(parse_measurement_v1(r, *keys, jm[i], at("measurements", i)));
    }
    return pending;
  }
  const bool with_rates = check_columns(r, doc, "measurements",
                                        {kMeasurementColumns, kMeasurementColumnsWithRates}) == 1;
  const Columns columns = with_rates ? Columns(kMeasurementColumnsWithRates) : kMeasurementColumns;
  for (size_t i = 0; i < jm.size(); ++i) {
    pending.push_back(
        parse_measurement(Row(r, jm[i], at("measurements", i), columns), sizes, with_rates));
  }
  if (!with_rates) derive_rates(pending, sections, rates);
  return pending;
}

// Documents written before schema v3, and winners-only ones, have no coverage section.
std::vector<std::pair<RowRefs, Coverage>> parse_coverage(const Reader& r, const json& doc,
                                                         const KeyIndex* keys,
                                                         const SectionSizes& sizes) {
  std::vector<std::pair<RowRefs, Coverage>> coverage;
  if (!doc.contains("coverage")) return coverage;
  const json& jc = r.array(doc, "coverage");
  if (keys != nullptr) {
    for (size_t i = 0; i < jc.size(); ++i) {
      const std::string path = at("coverage", i);
      coverage.emplace_back(parse_refs_v1(r, *keys, jc[i], path),
                            parse_coverage_v1(r, jc[i], path));
    }
    return coverage;
  }
  check_columns(r, doc, "coverage", {kCoverageColumns});
  for (size_t i = 0; i < jc.size(); ++i) {
    const Row row(r, jc[i], at("coverage", i), kCoverageColumns);
    const RowRefs refs{row.index(c_run, sizes.runs), row.index(c_device, sizes.devices),
                       row.index(c_problem, sizes.problems)};
    Coverage c;
    c.legal = row.u32(c_legal);
    c.measured = row.u32(c_measured);
    c.budget_cut = row.boolean(c_budget_cut);
    c.stages = row.u32_array(c_stages);
    coverage.emplace_back(refs, std::move(c));
  }
  return coverage;
}

// The winners and ranked sections are checked and not stored: derived from the measurements,
// as they are.
void check_best_rows(const Reader& r, const json& doc, uint32_t version, const SectionSizes& sizes) {
  if (doc.contains("winners")) {
    const json& jw = r.array(doc, "winners");
    if (version == 1) {
      for (size_t i = 0; i < jw.size(); ++i) {
        const std::string path = at("winners", i);
        parse_device(r, r.field(jw[i], path, "device"), path + ".device");
        parse_problem(r, r.field(jw[i], path, "problem"), path + ".problem");
        parse_kernel(r, r.field(jw[i], path, "kernel"), path + ".kernel");
        r.num(jw[i], path, "median_ns");
      }
    } else {
      parse_best_rows(r, doc, "winners", sizes);
    }
  }
  parse_ranked(r, doc, version, {}, sizes);
}

ImportStats count_rows(const Store& store) {
  auto count = [&](const char* table) {
    return store.connection().query_int(std::string("SELECT count(*) FROM ") + table);
  };
  return {count("devices"), count("kernels"),      count("problems"),
          count("runs"),    count("measurements"), count("coverage")};
}

// Upserts each record, returning its row id by index; a record the store refuses fails the
// import, named by its section and index.
template <typename Record, typename Upsert>
std::vector<int64_t> write_section(const Reader& r, const char* section,
                                   const std::vector<Record>& records, Upsert upsert) {
  std::vector<int64_t> ids(records.size());
  for (size_t i = 0; i < records.size(); ++i) {
    try {
      ids[i] = upsert(records[i]);
    } catch (const Error& e) {
      r.fail(at(section, i), e.what());
    }
  }
  return ids;
}

// Writes the parsed document in one transaction.
void write_rows(Store& store, const Reader& r, const Sections& sections,
                std::vector<PendingMeasurement>& pending,
                std::vector<std::pair<RowRefs, Coverage>>& coverage) {
  Transaction transaction(store.connection());
  const std::vector<int64_t> device_ids =
      write_section(r, "devices", sections.devices,
                    [&](const DeviceRecord& d) { return store.upsert_device(d, OnConflict::keep); });
  const std::vector<int64_t> kernel_ids =
      write_section(r, "kernels", sections.kernels,
                    [&](const KernelRecord& k) { return store.upsert_kernel(k, OnConflict::keep); });
  const std::vector<int64_t> problem_ids = write_section(
      r, "problems", sections.problems, [&](const Problem& p) { return store.upsert_problem(p); });
  std::vector<int64_t> run_ids;
  for (const RunRecord& run : sections.runs) run_ids.push_back(store.begin_run(run));
  // Sets the row ids of a row's run, device and problem.
  auto set_ids = [&](const RowRefs& refs, auto& row) {
    row.run_id = run_ids[refs.run];
    row.device_id = device_ids[refs.device];
    row.problem_id = problem_ids[refs.problem];
  };
  for (auto& p : pending) {
    set_ids(p.refs, p.m);
    p.m.kernel_id = kernel_ids[p.kernel];
    store.add_measurement(p.m, OnConflict::keep);
  }
  // After the measurements: put_coverage counts `measured` from them.
  for (auto& [refs, c] : coverage) {
    set_ids(refs, c);
    store.put_coverage(c, OnConflict::keep);
  }
  transaction.commit();
}

}  // namespace

ImportStats import_json(Store& store, const json& doc, const std::string& label,
                        const ImportChecks& checks) {
  const Reader r{label};
  const uint32_t version = check_header(r, doc);
  // Parse and validate everything before the first write.
  const Sections sections = parse_sections(r, doc, checks);
  const auto& [devices, kernels, problems, runs] = sections;
  const SectionSizes sizes{devices.size(), problems.size(), kernels.size(), runs.size()};
  std::optional<KeyIndex> keys;
  if (version == 1) {
    std::vector<std::string> run_uuids;
    for (const auto& run : runs) run_uuids.push_back(run.uuid);
    keys.emplace(devices, kernels, problems, run_uuids);
  }
  const KeyIndex* v1_keys = keys ? &*keys : nullptr;
  std::vector<PendingMeasurement> pending =
      parse_measurements(r, doc, v1_keys, sections, sizes, checks.rates);
  std::vector<std::pair<RowRefs, Coverage>> coverage = parse_coverage(r, doc, v1_keys, sizes);
  check_best_rows(r, doc, version, sizes);

  const ImportStats before = count_rows(store);
  write_rows(store, r, sections, pending, coverage);
  const ImportStats after = count_rows(store);
  return ImportStats{after.devices - before.devices,          after.kernels - before.kernels,
                     after.problems - before.problems,        after.runs - before.runs,
                     after.measurements - before.measurements, after.coverage - before.coverage};
}

ImportStats import_json_text(Store& store, std::string_view text, const std::string& label,
                             const ImportChecks& checks) {
  return import_json(store, parse_text(text, label), label, checks);
}

void check_rows(const Store& store, const ImportChecks& checks) {
  const Reader r{store.label()};
  const std::vector<KernelRecord> kernels = store.kernels();
  for (size_t i = 0; i < kernels.size(); ++i) {
    check_kernel(r, kernels[i], at("kernels", i), checks.spirv);
  }
  const std::vector<Problem> problems = store.problems();
  for (size_t i = 0; i < problems.size(); ++i) {
    check_problem(r, checks.problem, problems[i], at("problems", i));
  }
}

Catalog catalog_from_json(std::string_view text, const std::string& label,
                          const ImportChecks& checks) {
  const json doc = parse_text(text, label);
  const Reader r{label};
  const uint32_t version = check_header(r, doc);
  Catalog c;
  const json& jd = r.array(doc, "devices");
  for (size_t i = 0; i < jd.size(); ++i) {
    c.devices.push_back(parse_full_device(r, jd[i], at("devices", i)));
    c.devices.back().id = static_cast<int64_t>(i + 1);
  }
  const json& jk = r.array(doc, "kernels");
  for (size_t i = 0; i < jk.size(); ++i) {
    c.kernels.push_back(parse_full_kernel(r, jk[i], at("kernels", i), checks.spirv));
    c.kernels.back().id = static_cast<int64_t>(i + 1);
  }
  const json& jp = r.array(doc, "problems");
  for (size_t i = 0; i < jp.size(); ++i) {
    c.problems.push_back(parse_problem(r, jp[i], at("problems", i)));
    c.problems.back().id = static_cast<int64_t>(i + 1);
    check_problem(r, checks.problem, c.problems.back(), at("problems", i));
  }
  // Runs only as what winners refer to: their uuids.
  const json& jr = r.array(doc, "runs");
  std::vector<std::string> run_uuids;
  for (size_t i = 0; i < jr.size(); ++i) run_uuids.push_back(r.str(jr[i], at("runs", i), "uuid"));
  const SectionSizes sizes{c.devices.size(), c.problems.size(), c.kernels.size(), run_uuids.size()};
  const json& jw = r.array(doc, "winners");
  if (version == 1) {
    const KeyIndex keys(c.devices, c.kernels, c.problems, run_uuids);
    for (size_t i = 0; i < jw.size(); ++i) {
      const std::string path = at("winners", i);
      const json& o = jw[i];
      BestRow w;
      const auto id = [](size_t index) { return static_cast<int64_t>(index + 1); };
      w.device_id = id(resolve(r, keys.devices, device_key(parse_device(r, r.field(o, path, "device"), path + ".device")),
                               path + ".device", "devices"));
      w.problem_id = id(resolve(r, keys.problems, problem_key(parse_problem(r, r.field(o, path, "problem"), path + ".problem")),
                                path + ".problem", "problems"));
      w.kernel_id = id(resolve(r, keys.kernels, kernel_key(parse_kernel(r, r.field(o, path, "kernel"), path + ".kernel")),
                               path + ".kernel", "kernels"));
      w.run_id = id(resolve(r, keys.runs, r.str(o, path, "run"), path + ".run", "runs"));
      w.median_ns = r.num(o, path, "median_ns");
      c.winners.push_back(w);
    }
  } else {
    c.winners = parse_best_rows(r, doc, "winners", sizes);
  }
  c.ranked = parse_ranked(r, doc, version, c.winners, sizes);
  return c;
}

}  // namespace vktune::db
