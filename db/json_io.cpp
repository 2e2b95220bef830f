// Export/import of the JSON document. Parsing is strict: every field is checked with its path.
#include "db/json_io.h"

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <unordered_map>
#include <unordered_set>

#include "db/base64.h"
#include "db/error.h"

namespace vktune::db {
namespace {

using nlohmann::json;

// Validation context: the document's label and the path of the value being read.
struct Reader {
  const std::string& label;

  [[noreturn]] void fail(const std::string& path, const std::string& what) const {
    throw Error(label + ": " + path + ": " + what);
  }
  const json& field(const json& obj, const std::string& path, const char* name) const {
    if (!obj.is_object()) fail(path, std::string("expected an object, got ") + obj.type_name());
    const auto it = obj.find(name);
    if (it == obj.end()) fail(path + "." + name, "missing");
    return *it;
  }
  bool present(const json& obj, const char* name) const {
    const auto it = obj.find(name);
    return it != obj.end() && !it->is_null();
  }
  std::string str(const json& obj, const std::string& path, const char* name) const {
    const json& v = field(obj, path, name);
    if (!v.is_string()) fail(path + "." + name, std::string("expected a string, got ") + v.type_name());
    return v.get<std::string>();
  }
  uint32_t u32(const json& obj, const std::string& path, const char* name) const {
    return u32_value(field(obj, path, name), path + "." + name);
  }
  uint32_t u32_value(const json& v, const std::string& path) const {
    // Parsed non-negative literals are "unsigned", values built in C++ may be "integer".
    const bool in_range = v.is_number_unsigned()
                              ? v.get<uint64_t>() <= std::numeric_limits<uint32_t>::max()
                              : v.is_number_integer() && v.get<int64_t>() >= 0 &&
                                    v.get<int64_t>() <= std::numeric_limits<uint32_t>::max();
    if (!in_range) {
      fail(path, std::string("expected an unsigned 32-bit integer, got ") +
                     (v.is_number() ? v.dump() : v.type_name()));
    }
    return static_cast<uint32_t>(v.get<int64_t>());
  }
  bool boolean(const json& obj, const std::string& path, const char* name) const {
    const json& v = field(obj, path, name);
    if (!v.is_boolean())
      fail(path + "." + name, std::string("expected true or false, got ") + v.type_name());
    return v.get<bool>();
  }
  double num(const json& obj, const std::string& path, const char* name) const {
    const json& v = field(obj, path, name);
    if (!v.is_number()) fail(path + "." + name, std::string("expected a number, got ") + v.type_name());
    return v.get<double>();
  }
  // Nullable numbers may be absent or null.
  std::optional<double> opt_num(const json& obj, const std::string& path, const char* name) const {
    if (!present(obj, name)) return std::nullopt;
    return num(obj, path, name);
  }
  std::optional<std::string> opt_str(const json& obj, const std::string& path, const char* name) const {
    if (!present(obj, name)) return std::nullopt;
    return str(obj, path, name);
  }
  const json& array(const json& obj, const char* name) const {
    const json& v = field(obj, "document", name);
    if (!v.is_array()) fail(name, std::string("expected an array, got ") + v.type_name());
    return v;
  }
  // JSON text stored verbatim (knobs keep their declared order); must itself parse.
  std::string json_text(const json& obj, const std::string& path, const char* name) const {
    std::string text = str(obj, path, name);
    if (!json::accept(text)) fail(path + "." + name, "is not valid JSON text");
    return text;
  }
};

std::string at(const std::string& section, size_t i) {
  return section + "[" + std::to_string(i) + "]";
}

json device_ref(const DeviceRecord& d) {
  return {{"vendor_id", d.vendor_id}, {"device_id", d.device_id}, {"driver_id", d.driver_id},
          {"driver_version", d.driver_version}, {"pipeline_cache_uuid", d.pipeline_cache_uuid},
          {"name", d.name}};
}
json kernel_ref(const KernelRecord& k) {
  return {{"variant_key", k.variant_key}, {"source_hash", k.source_hash}};
}
json problem_ref(const Problem& p) {
  return {{"op", p.op}, {"dtype", p.dtype}, {"m", p.m}, {"n", p.n}, {"k", p.k},
          {"group_size", p.group_size}};
}
json nullable(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }

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
         '\x1f' + std::to_string(p.k) + '\x1f' + std::to_string(p.group_size);
}

// A row's run, device and problem (measurements and coverage rows) as natural keys.
struct RowRefs {
  std::string run, device, problem;
};

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
KernelRecord parse_full_kernel(const Reader& r, const json& o, const std::string& path) {
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
  return k;
}
Problem parse_problem(const Reader& r, const json& o, const std::string& path) {
  Problem p;
  p.op = r.str(o, path, "op");
  p.dtype = r.str(o, path, "dtype");
  p.m = r.u32(o, path, "m");
  p.n = r.u32(o, path, "n");
  p.k = r.u32(o, path, "k");
  p.group_size = r.u32(o, path, "group_size");
  return p;
}

RowRefs parse_refs(const Reader& r, const json& o, const std::string& path) {
  return {r.str(o, path, "run"),
          device_key(parse_device(r, r.field(o, path, "device"), path + ".device")),
          problem_key(parse_problem(r, r.field(o, path, "problem"), path + ".problem"))};
}

Coverage parse_coverage(const Reader& r, const json& o, const std::string& path) {
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

void check_header(const Reader& r, const json& doc) {
  if (!doc.is_object()) r.fail("document", std::string("expected an object, got ") + doc.type_name());
  if (r.str(doc, "document", "format") != "vktune-db") {
    r.fail("document.format", "is not \"vktune-db\"");
  }
  const uint32_t version = r.u32(doc, "document", "version");
  if (version != kJsonFormatVersion) {
    r.fail("document.version", std::to_string(version) + " is not supported (this vktune reads " +
                                   std::to_string(kJsonFormatVersion) + ")");
  }
}

json parse_text(std::string_view text, const std::string& label) {
  try {
    return json::parse(text);
  } catch (const json::exception& e) {
    throw Error(label + ": not valid JSON: " + e.what());
  }
}

// Resolves a reference through a key map built from the document's own section.
int64_t resolve(const Reader& r, const std::unordered_map<std::string, int64_t>& ids,
                const std::string& key, const std::string& path, const char* section) {
  const auto it = ids.find(key);
  if (it == ids.end()) r.fail(path, std::string("refers to an entry missing from '") + section + "'");
  return it->second;
}

}  // namespace

json export_json(const Store& store, ExportScope scope) {
  const auto devices = store.devices();
  auto kernels = store.kernels();
  auto problems = store.problems();
  auto runs = store.runs();
  const auto winners = store.best();
  auto measurements = store.measurements();
  if (scope == ExportScope::winners) {
    // Only what the winners refer to; imported, it gives the same `best` rows.
    std::unordered_set<int64_t> kernel_ids, problem_ids, run_ids, measurement_ids;
    for (const auto& w : winners) {
      kernel_ids.insert(w.kernel_id);
      problem_ids.insert(w.problem_id);
      run_ids.insert(w.run_id);
      measurement_ids.insert(w.measurement_id);
    }
    std::erase_if(kernels, [&](const KernelRecord& k) { return !kernel_ids.count(k.id); });
    std::erase_if(problems, [&](const Problem& p) { return !problem_ids.count(p.id); });
    std::erase_if(runs, [&](const RunRecord& r) { return !run_ids.count(r.id); });
    std::erase_if(measurements,
                  [&](const Measurement& m) { return !measurement_ids.count(m.id); });
  }
  std::unordered_map<int64_t, const DeviceRecord*> device_by_id;
  std::unordered_map<int64_t, const KernelRecord*> kernel_by_id;
  std::unordered_map<int64_t, const Problem*> problem_by_id;
  std::unordered_map<int64_t, const RunRecord*> run_by_id;
  json doc = {{"format", "vktune-db"}, {"version", kJsonFormatVersion}};
  json& jd = doc["devices"] = json::array();
  for (const auto& d : devices) {
    device_by_id[d.id] = &d;
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
    kernel_by_id[k.id] = &k;
    json o = kernel_ref(k);
    o["family"] = k.family;
    o["knobs_json"] = k.knobs_json;
    o["constraints_json"] = k.constraints_json;
    o["layout"] = k.layout;
    o["workgroup_size"] = k.workgroup_size;
    o["spirv"] = k.spirv ? json(base64_encode(*k.spirv)) : json(nullptr);
    jk.push_back(std::move(o));
  }
  json& jp = doc["problems"] = json::array();
  for (const auto& p : problems) {
    problem_by_id[p.id] = &p;
    jp.push_back(problem_ref(p));
  }
  json& jr = doc["runs"] = json::array();
  for (const auto& r : runs) {
    run_by_id[r.id] = &r;
    jr.push_back({{"uuid", r.uuid}, {"started_at", r.started_at},
                  {"ended_at", r.ended_at ? json(*r.ended_at) : json(nullptr)},
                  {"strategy", r.strategy}, {"tool_version", r.tool_version}, {"host", r.host},
                  {"cache_mode", r.cache_mode}});
  }
  auto refs = [&](int64_t run_id, int64_t device_id, int64_t problem_id) {
    return json{{"run", run_by_id.at(run_id)->uuid},
                {"device", device_ref(*device_by_id.at(device_id))},
                {"problem", problem_ref(*problem_by_id.at(problem_id))}};
  };
  json& jm = doc["measurements"] = json::array();
  for (const auto& m : measurements) {
    json o = refs(m.run_id, m.device_id, m.problem_id);
    o.update({{"kernel", kernel_ref(*kernel_by_id.at(m.kernel_id))},
              {"status", to_string(m.status)},
              {"message", m.message},
              {"n", m.n},
              {"median_ns", nullable(m.median_ns)},
              {"min_ns", nullable(m.min_ns)},
              {"p10_ns", nullable(m.p10_ns)},
              {"p90_ns", nullable(m.p90_ns)},
              {"max_error", nullable(m.max_error)},
              {"gbps", nullable(m.gbps)},
              {"gflops", nullable(m.gflops)}});
    jm.push_back(std::move(o));
  }
  // The winners' part leaves coverage out: it holds one measurement per problem, so records of
  // how many variants each run measured would describe results it does not carry, and its
  // reader, the runtime, only picks winners. A report of an imported winners file then shows
  // coverage as unknown, not as a count its own measurements contradict.
  if (scope == ExportScope::all) {
    json& jc = doc["coverage"] = json::array();
    for (const auto& c : store.coverage()) {
      json o = refs(c.run_id, c.device_id, c.problem_id);
      o.update({{"legal", c.legal},
                {"measured", c.measured},
                {"stages", c.stages},
                {"budget_cut", c.budget_cut}});
      jc.push_back(std::move(o));
    }
  }
  json& jw = doc["winners"] = json::array();
  for (const auto& w : winners) {
    jw.push_back({{"device", device_ref(*device_by_id.at(w.device_id))},
                  {"problem", problem_ref(*problem_by_id.at(w.problem_id))},
                  {"kernel", kernel_ref(*kernel_by_id.at(w.kernel_id))},
                  {"run", run_by_id.at(w.run_id)->uuid}, {"median_ns", w.median_ns}});
  }
  return doc;
}

std::string export_json_text(const Store& store, int indent, ExportScope scope) {
  return export_json(store, scope).dump(indent);
}

ImportStats import_json(Store& store, const json& doc, const std::string& label) {
  const Reader r{label};
  check_header(r, doc);
  // Parse and validate everything before the first write.
  std::vector<DeviceRecord> devices;
  std::vector<KernelRecord> kernels;
  std::vector<Problem> problems;
  std::vector<RunRecord> runs;
  const json& jd = r.array(doc, "devices");
  for (size_t i = 0; i < jd.size(); ++i) devices.push_back(parse_full_device(r, jd[i], at("devices", i)));
  const json& jk = r.array(doc, "kernels");
  for (size_t i = 0; i < jk.size(); ++i) kernels.push_back(parse_full_kernel(r, jk[i], at("kernels", i)));
  const json& jp = r.array(doc, "problems");
  for (size_t i = 0; i < jp.size(); ++i) problems.push_back(parse_problem(r, jp[i], at("problems", i)));
  const json& jr = r.array(doc, "runs");
  for (size_t i = 0; i < jr.size(); ++i) {
    const std::string path = at("runs", i);
    RunRecord run;
    run.uuid = r.str(jr[i], path, "uuid");
    if (run.uuid.empty()) r.fail(path + ".uuid", "is empty");
    run.started_at = r.str(jr[i], path, "started_at");
    run.ended_at = r.opt_str(jr[i], path, "ended_at");
    run.strategy = r.str(jr[i], path, "strategy");
    run.tool_version = r.str(jr[i], path, "tool_version");
    run.host = r.str(jr[i], path, "host");
    run.cache_mode = r.str(jr[i], path, "cache_mode");
    runs.push_back(std::move(run));
  }
  struct Pending {
    RowRefs refs;
    std::string kernel;
    Measurement m;
  };
  std::vector<Pending> pending;
  const json& jm = r.array(doc, "measurements");
  for (size_t i = 0; i < jm.size(); ++i) {
    const std::string path = at("measurements", i);
    const json& o = jm[i];
    Pending p;
    p.refs = parse_refs(r, o, path);
    p.kernel = kernel_key(parse_kernel(r, r.field(o, path, "kernel"), path + ".kernel"));
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
    pending.push_back(std::move(p));
  }
  // Documents written before schema v3 have no coverage section.
  std::vector<std::pair<RowRefs, Coverage>> coverage;
  if (doc.contains("coverage")) {
    const json& jc = r.array(doc, "coverage");
    for (size_t i = 0; i < jc.size(); ++i) {
      const std::string path = at("coverage", i);
      coverage.emplace_back(parse_refs(r, jc[i], path), parse_coverage(r, jc[i], path));
    }
  }
  if (doc.contains("winners")) {
    const json& jw = r.array(doc, "winners");
    for (size_t i = 0; i < jw.size(); ++i) {
      const std::string path = at("winners", i);
      parse_device(r, r.field(jw[i], path, "device"), path + ".device");
      parse_problem(r, r.field(jw[i], path, "problem"), path + ".problem");
      parse_kernel(r, r.field(jw[i], path, "kernel"), path + ".kernel");
      r.num(jw[i], path, "median_ns");
    }
  }

  auto count = [&](const char* table) {
    return store.connection().query_int(std::string("SELECT count(*) FROM ") + table);
  };
  const ImportStats before{count("devices"), count("kernels"),      count("problems"),
                           count("runs"),    count("measurements"), count("coverage")};
  Transaction transaction(store.connection());
  std::unordered_map<std::string, int64_t> device_ids, kernel_ids, problem_ids, run_ids;
  for (size_t i = 0; i < devices.size(); ++i) {
    try {
      device_ids[device_key(devices[i])] = store.upsert_device(devices[i], OnConflict::keep);
    } catch (const Error& e) {
      r.fail(at("devices", i), e.what());
    }
  }
  for (size_t i = 0; i < kernels.size(); ++i) {
    try {
      kernel_ids[kernel_key(kernels[i])] = store.upsert_kernel(kernels[i], OnConflict::keep);
    } catch (const Error& e) {
      r.fail(at("kernels", i), e.what());
    }
  }
  for (size_t i = 0; i < problems.size(); ++i) {
    try {
      problem_ids[problem_key(problems[i])] = store.upsert_problem(problems[i]);
    } catch (const Error& e) {
      r.fail(at("problems", i), e.what());
    }
  }
  for (const auto& run : runs) run_ids[run.uuid] = store.begin_run(run);
  // Sets the row ids of a row's run, device and problem.
  auto resolve_refs = [&](const RowRefs& refs, const std::string& path, auto& row) {
    row.run_id = resolve(r, run_ids, refs.run, path + ".run", "runs");
    row.device_id = resolve(r, device_ids, refs.device, path + ".device", "devices");
    row.problem_id = resolve(r, problem_ids, refs.problem, path + ".problem", "problems");
  };
  for (size_t i = 0; i < pending.size(); ++i) {
    auto& p = pending[i];
    const std::string path = at("measurements", i);
    resolve_refs(p.refs, path, p.m);
    p.m.kernel_id = resolve(r, kernel_ids, p.kernel, path + ".kernel", "kernels");
    store.add_measurement(p.m, OnConflict::keep);
  }
  // After the measurements: put_coverage counts `measured` from them.
  for (size_t i = 0; i < coverage.size(); ++i) {
    auto& [refs, c] = coverage[i];
    resolve_refs(refs, at("coverage", i), c);
    store.put_coverage(c, OnConflict::keep);
  }
  transaction.commit();
  return ImportStats{
      count("devices") - before.devices,           count("kernels") - before.kernels,
      count("problems") - before.problems,         count("runs") - before.runs,
      count("measurements") - before.measurements, count("coverage") - before.coverage};
}

ImportStats import_json_text(Store& store, std::string_view text, const std::string& label) {
  return import_json(store, parse_text(text, label), label);
}

Catalog catalog_from_json(std::string_view text, const std::string& label) {
  const json doc = parse_text(text, label);
  const Reader r{label};
  check_header(r, doc);
  Catalog c;
  std::unordered_map<std::string, int64_t> device_ids, kernel_ids, problem_ids, run_ids;
  const json& jd = r.array(doc, "devices");
  for (size_t i = 0; i < jd.size(); ++i) {
    c.devices.push_back(parse_full_device(r, jd[i], at("devices", i)));
    c.devices.back().id = static_cast<int64_t>(i + 1);
    device_ids[device_key(c.devices.back())] = c.devices.back().id;
  }
  const json& jk = r.array(doc, "kernels");
  for (size_t i = 0; i < jk.size(); ++i) {
    c.kernels.push_back(parse_full_kernel(r, jk[i], at("kernels", i)));
    c.kernels.back().id = static_cast<int64_t>(i + 1);
    kernel_ids[kernel_key(c.kernels.back())] = c.kernels.back().id;
  }
  const json& jp = r.array(doc, "problems");
  for (size_t i = 0; i < jp.size(); ++i) {
    c.problems.push_back(parse_problem(r, jp[i], at("problems", i)));
    c.problems.back().id = static_cast<int64_t>(i + 1);
    problem_ids[problem_key(c.problems.back())] = c.problems.back().id;
  }
  const json& jr = r.array(doc, "runs");
  for (size_t i = 0; i < jr.size(); ++i) {
    run_ids[r.str(jr[i], at("runs", i), "uuid")] = static_cast<int64_t>(i + 1);
  }
  const json& jw = r.array(doc, "winners");
  for (size_t i = 0; i < jw.size(); ++i) {
    const std::string path = at("winners", i);
    const json& o = jw[i];
    BestRow w;
    w.device_id = resolve(r, device_ids, device_key(parse_device(r, r.field(o, path, "device"), path + ".device")),
                          path + ".device", "devices");
    w.problem_id = resolve(r, problem_ids, problem_key(parse_problem(r, r.field(o, path, "problem"), path + ".problem")),
                           path + ".problem", "problems");
    w.kernel_id = resolve(r, kernel_ids, kernel_key(parse_kernel(r, r.field(o, path, "kernel"), path + ".kernel")),
                          path + ".kernel", "kernels");
    w.run_id = resolve(r, run_ids, r.str(o, path, "run"), path + ".run", "runs");
    w.median_ns = r.num(o, path, "median_ns");
    c.winners.push_back(w);
  }
  return c;
}

}  // namespace vktune::db
