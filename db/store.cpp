// Store: the write path (upserts; a result its own transaction unless batched) and the read
// path.
#include "db/store.h"

#include <sqlite3.h>

#include <array>
#include <chrono>
#include <ctime>
#include <nlohmann/json.hpp>
#include <random>
#include <span>

#include "db/best_rows.h"
#include "db/error.h"
#include "db/json_io.h"

namespace vktune::db {
namespace {

constexpr std::array<std::string_view, 5> kDeviceTypes = {"discrete", "integrated", "virtual",
                                                          "cpu", "other"};

bool is_hex32(std::string_view s) {
  if (s.size() != 32) return false;
  for (char ch : s) {
    if (!((ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f'))) return false;
  }
  return true;
}

std::string random_uuid() {
  std::random_device rd;
  std::mt19937_64 gen((uint64_t{rd()} << 32) ^ rd() ^
                      static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count()));
  static constexpr char kHex[] = "0123456789abcdef";
  std::string s(32, '0');
  for (auto& ch : s) ch = kHex[gen() & 15];
  return s;
}

DeviceRecord read_device(const Statement& s) {
  DeviceRecord d;
  d.id = s.integer("id");
  d.vendor_id = static_cast<uint32_t>(s.integer("vendor_id"));
  d.device_id = static_cast<uint32_t>(s.integer("device_id"));
  d.name = s.text("name");
  d.driver_id = static_cast<uint32_t>(s.integer("driver_id"));
  d.driver_version = static_cast<uint32_t>(s.integer("driver_version"));
  d.driver_version_text = s.text("driver_version_text");
  d.driver_info = s.text("driver_info");
  d.api_version = static_cast<uint32_t>(s.integer("api_version"));
  d.pipeline_cache_uuid = s.text("pipeline_cache_uuid");
  d.device_type = s.text("device_type");
  d.subgroup_size = static_cast<uint32_t>(s.integer("subgroup_size"));
  d.properties_json = s.text("properties_json");
  d.copy_bandwidth_gbps = s.optional_real("copy_bandwidth_gbps");
  return d;
}

KernelRecord read_kernel(const Statement& s, bool with_spirv) {
  KernelRecord k;
  k.id = s.integer("id");
  k.family = s.text("family");
  k.variant_key = s.text("variant_key");
  k.knobs_json = s.text("knobs_json");
  k.constraints_json = s.text("constraints_json");
  k.layout = s.text("layout");
  k.workgroup_size = static_cast<uint32_t>(s.integer("workgroup_size"));
  k.source_hash = s.text("source_hash");
  k.specialization_json = s.text("specialization_json");
  if (with_spirv && !s.is_null("spirv")) k.spirv = s.blob("spirv");
  return k;
}

Problem read_problem(const Statement& s) {
  Problem p;
  p.id = s.integer("id");
  p.op = s.text("op");
  p.dtype = s.text("dtype");
  p.m = static_cast<uint32_t>(s.integer("m"));
  p.n = static_cast<uint32_t>(s.integer("n"));
  p.k = static_cast<uint32_t>(s.integer("k"));
  p.group_size = static_cast<uint32_t>(s.integer("group_size"));
  p.heads = static_cast<uint32_t>(s.integer("heads"));
  p.kv_heads = static_cast<uint32_t>(s.integer("kv_heads"));
  return p;
}

BestRow read_best(const Statement& s) {
  return BestRow{s.integer("device_id"), s.integer("problem_id"),     s.integer("kernel_id"),
                 s.integer("run_id"),    s.integer("measurement_id"), s.real("median_ns")};
}

int64_t returned_id(Statement& s, const Connection& c, const char* what) {
  if (!s.step()) throw Error(c.label() + ": " + what + " returned no id");
  const int64_t id = s.integer("id");
  s.reset();  // RETURNING leaves the statement open until reset, and COMMIT waits for it
  return id;
}

}  // namespace

std::string utc_now() {
  const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

Store Store::open(const std::string& path, OpenMode mode, IntegrityCheck check) {
  return Store(open_database(path, mode, check));
}
Store Store::open_memory(const std::string& label) { return Store(db::open_memory(label)); }
Store Store::open_image(std::span<const uint8_t> bytes, const std::string& label) {
  return Store(db::open_image(bytes, label));
}

int64_t Store::upsert_device(const DeviceRecord& d, OnConflict on_conflict) {
  if (!is_hex32(d.pipeline_cache_uuid)) {
    throw Error(label() + ": device '" + d.name + "': pipeline_cache_uuid '" +
                d.pipeline_cache_uuid + "' is not 32 lowercase hex characters");
  }
  bool known_type = false;
  for (auto t : kDeviceTypes) known_type |= t == d.device_type;
  if (!known_type) {
    throw Error(label() + ": device '" + d.name + "': device_type '" + d.device_type +
                "' is not discrete, integrated, virtual, cpu or other");
  }
  // keep: the stored row wins, only a missing bandwidth is filled. update: descriptive
  // fields follow the newest description; a measured bandwidth is never erased by NULL.
  const char* on_conflict_sql =
      on_conflict == OnConflict::keep
          ? "copy_bandwidth_gbps = coalesce(devices.copy_bandwidth_gbps, "
            "excluded.copy_bandwidth_gbps)"
          : "driver_version_text = excluded.driver_version_text, driver_info = "
            "excluded.driver_info, api_version = excluded.api_version, device_type = "
            "excluded.device_type, subgroup_size = excluded.subgroup_size, properties_json = "
            "excluded.properties_json, copy_bandwidth_gbps = "
            "coalesce(excluded.copy_bandwidth_gbps, devices.copy_bandwidth_gbps)";
  Statement& s = connection_.prepared(
      std::string("INSERT INTO devices (vendor_id, device_id, name, driver_id, "
                  "driver_version, driver_version_text, driver_info, api_version, "
                  "pipeline_cache_uuid, device_type, subgroup_size, properties_json, "
                  "copy_bandwidth_gbps) VALUES (:vendor_id, :device_id, :name, "
                  ":driver_id, :driver_version, :driver_version_text, :driver_info, "
                  ":api_version, :uuid, :device_type, :subgroup_size, :properties, "
                  ":bandwidth) ON CONFLICT (vendor_id, device_id, driver_id, "
                  "driver_version, pipeline_cache_uuid, name) DO UPDATE SET ") +
      on_conflict_sql + " RETURNING id");
  s.bind(":vendor_id", d.vendor_id).bind(":device_id", d.device_id).bind(":name", d.name);
  s.bind(":driver_id", d.driver_id).bind(":driver_version", d.driver_version);
  s.bind(":driver_version_text", d.driver_version_text).bind(":driver_info", d.driver_info);
  s.bind(":api_version", d.api_version).bind(":uuid", d.pipeline_cache_uuid);
  s.bind(":device_type", d.device_type).bind(":subgroup_size", d.subgroup_size);
  s.bind(":properties", d.properties_json).bind(":bandwidth", d.copy_bandwidth_gbps);
  return returned_id(s, connection_, "upsert_device");
}

int64_t Store::upsert_kernel(const KernelRecord& k, OnConflict on_conflict) {
  if (k.variant_key.empty() || k.source_hash.empty() || k.family.empty()) {
    throw Error(label() + ": kernel '" + k.variant_key +
                "': family, variant_key and source_hash must not be empty");
  }
  // Same key and source hash means the same binary: only a missing SPIR-V is worth filling.
  const char* spirv_sql = on_conflict == OnConflict::keep
                              ? "spirv = coalesce(kernels.spirv, excluded.spirv)"
                              : "spirv = coalesce(excluded.spirv, kernels.spirv)";
  Statement& s = connection_.prepared(
      std::string("INSERT INTO kernels (family, variant_key, knobs_json, "
                  "constraints_json, layout, workgroup_size, source_hash, spirv, "
                  "specialization_json) VALUES (:family, :key, :knobs, :constraints, "
                  ":layout, :wg, :hash, :spirv, :specialization) "
                  "ON CONFLICT (variant_key, source_hash) DO UPDATE SET ") +
      spirv_sql + " RETURNING id");
  s.bind(":family", k.family).bind(":key", k.variant_key).bind(":knobs", k.knobs_json);
  s.bind(":constraints", k.constraints_json).bind(":layout", k.layout);
  s.bind(":wg", k.workgroup_size).bind(":hash", k.source_hash);
  s.bind(":specialization", k.specialization_json);
  if (k.spirv) {
    s.bind(":spirv", std::span<const uint8_t>(*k.spirv));
  } else {
    s.bind_null(":spirv");
  }
  return returned_id(s, connection_, "upsert_kernel");
}

int64_t Store::upsert_problem(const Problem& p) {
  if (p.op.empty() || p.dtype.empty() || p.m == 0 || p.n == 0 || p.k == 0) {
    throw Error(label() + ": problem " + p.op + " " + std::to_string(p.m) + "x" +
                std::to_string(p.n) + "x" + std::to_string(p.k) +
                ": op and dtype must be set and M, N, K non-zero");
  }
  Statement& s = connection_.prepared(
      "INSERT INTO problems (op, dtype, m, n, k, group_size, heads, kv_heads) VALUES (:op, "
      ":dtype, :m, :n, :k, :gs, :heads, :kv_heads) ON CONFLICT (op, dtype, m, n, k, "
      "group_size, heads, kv_heads) DO UPDATE SET op = excluded.op RETURNING id");
  s.bind(":op", p.op).bind(":dtype", p.dtype).bind(":m", p.m).bind(":n", p.n).bind(":k", p.k);
  s.bind(":gs", p.group_size).bind(":heads", p.heads).bind(":kv_heads", p.kv_heads);
  return returned_id(s, connection_, "upsert_problem");
}

int64_t Store::begin_run(const RunRecord& r) {
  Statement s(connection_,
              "INSERT INTO runs (uuid, started_at, ended_at, strategy, tool_version, host, "
              "cache_mode) VALUES (:uuid, :started, :ended, :strategy, :tool, :host, :cache) "
              "ON CONFLICT (uuid) DO UPDATE SET ended_at = coalesce(runs.ended_at, "
              "excluded.ended_at) RETURNING id");
  s.bind(":uuid", r.uuid.empty() ? random_uuid() : r.uuid);
  s.bind(":started", r.started_at.empty() ? utc_now() : r.started_at);
  s.bind(":ended", r.ended_at).bind(":strategy", r.strategy).bind(":tool", r.tool_version);
  s.bind(":host", r.host).bind(":cache", r.cache_mode);
  return returned_id(s, connection_, "begin_run");
}

void Store::end_run(int64_t run_id, const std::string& ended_at) {
  Statement s(connection_, "UPDATE runs SET ended_at = :ended WHERE id = :id");
  s.bind(":ended", ended_at.empty() ? utc_now() : ended_at).bind(":id", run_id).run();
  if (connection_.changes() == 0) throw Error(label() + ": end_run: no run " + std::to_string(run_id));
}

void Store::add_measurement(const Measurement& m, OnConflict on_conflict) {
  if (m.status == Status::ok && !m.median_ns) {
    throw Error(label() + ": measurement of kernel " + std::to_string(m.kernel_id) +
                ": status ok needs median_ns");
  }
  const char* conflict_sql =
      on_conflict == OnConflict::keep
          ? "NOTHING"
          : "UPDATE SET status = excluded.status, message = excluded.message, n = excluded.n, "
            "median_ns = excluded.median_ns, min_ns = excluded.min_ns, p10_ns = excluded.p10_ns, "
            "p90_ns = excluded.p90_ns, max_error = excluded.max_error, gbps = excluded.gbps, "
            "gflops = excluded.gflops";
  Transaction transaction(connection_, Transaction::Scope::one_statement);
  Statement& s = connection_.prepared(
      std::string("INSERT INTO measurements (run_id, device_id, problem_id, kernel_id, "
                  "status, message, n, median_ns, min_ns, p10_ns, p90_ns, max_error, "
                  "gbps, gflops) VALUES (:run, :device, :problem, :kernel, :status, "
                  ":message, :n, :median, :min, :p10, :p90, :max_error, :gbps, :gflops) "
                  "ON CONFLICT (run_id, device_id, problem_id, kernel_id) DO ") +
      conflict_sql);
  s.bind(":run", m.run_id).bind(":device", m.device_id).bind(":problem", m.problem_id);
  s.bind(":kernel", m.kernel_id).bind(":status", to_string(m.status)).bind(":message", m.message);
  s.bind(":n", m.n).bind(":median", m.median_ns).bind(":min", m.min_ns).bind(":p10", m.p10_ns);
  s.bind(":p90", m.p90_ns).bind(":max_error", m.max_error).bind(":gbps", m.gbps);
  s.bind(":gflops", m.gflops);
  s.run();
  transaction.commit();
}

void Store::put_coverage(const Coverage& c, OnConflict on_conflict) {
  const char* conflict_sql =
      on_conflict == OnConflict::keep
          ? "NOTHING"
          : "UPDATE SET legal = excluded.legal, measured = excluded.measured, stages_json = "
            "excluded.stages_json, budget_cut = excluded.budget_cut";
  Statement& s = connection_.prepared(
      std::string("INSERT INTO coverage (run_id, device_id, problem_id, legal, measured, "
                  "stages_json, budget_cut) VALUES (:run, :device, :problem, :legal, "
                  "(SELECT COUNT(DISTINCT kernel_id) FROM measurements WHERE run_id = "
                  ":run AND device_id = :device AND problem_id = :problem), :stages, "
                  ":cut) ON CONFLICT (run_id, device_id, problem_id) DO ") +
      conflict_sql);
  s.bind(":run", c.run_id).bind(":device", c.device_id).bind(":problem", c.problem_id);
  s.bind(":legal", static_cast<int64_t>(c.legal))
      .bind(":stages", nlohmann::json(c.stages).dump())
      .bind(":cut", int64_t{c.budget_cut ? 1 : 0});
  s.run();
}

std::vector<Coverage> Store::coverage() const {
  Statement s(connection_, "SELECT * FROM coverage ORDER BY run_id, device_id, problem_id");
  std::vector<Coverage> out;
  while (s.step()) {
    Coverage c;
    c.run_id = s.integer("run_id");
    c.device_id = s.integer("device_id");
    c.problem_id = s.integer("problem_id");
    c.legal = static_cast<uint32_t>(s.integer("legal"));
    c.measured = static_cast<uint32_t>(s.integer("measured"));
    c.stages = nlohmann::json::parse(s.text("stages_json")).get<std::vector<uint32_t>>();
    c.budget_cut = s.integer("budget_cut") != 0;
    out.push_back(std::move(c));
  }
  return out;
}

bool Store::has_measurement(int64_t device_id, int64_t problem_id, int64_t kernel_id) const {
  Statement s(connection_,
              "SELECT 1 AS found FROM measurements WHERE device_id = :device AND problem_id = "
              ":problem AND kernel_id = :kernel LIMIT 1");
  s.bind(":device", device_id).bind(":problem", problem_id).bind(":kernel", kernel_id);
  return s.step();
}

void Store::raise_copy_bandwidth(int64_t device_id, double gbps) {
  Statement s(connection_,
              "UPDATE devices SET copy_bandwidth_gbps = max(coalesce(copy_bandwidth_gbps, 0), :gbps) "
              "WHERE id = :id");
  s.bind(":gbps", gbps).bind(":id", device_id).run();
  if (connection_.changes() == 0) {
    throw Error(label() + ": raise_copy_bandwidth: no device " + std::to_string(device_id));
  }
}

std::vector<DeviceRecord> Store::devices() const {
  Statement s(connection_, "SELECT * FROM devices ORDER BY id");
  std::vector<DeviceRecord> out;
  while (s.step()) out.push_back(read_device(s));
  return out;
}

std::vector<KernelRecord> Store::kernels() const {
  Statement s(connection_, "SELECT * FROM kernels ORDER BY id");
  std::vector<KernelRecord> out;
  while (s.step()) out.push_back(read_kernel(s, true));
  return out;
}

std::vector<Problem> Store::problems() const {
  Statement s(connection_, "SELECT * FROM problems ORDER BY id");
  std::vector<Problem> out;
  while (s.step()) out.push_back(read_problem(s));
  return out;
}

std::vector<RunRecord> Store::runs() const {
  Statement s(connection_, "SELECT * FROM runs ORDER BY id");
  std::vector<RunRecord> out;
  while (s.step()) {
    RunRecord r;
    r.id = s.integer("id");
    r.uuid = s.text("uuid");
    r.started_at = s.text("started_at");
    r.ended_at = s.optional_text("ended_at");
    r.strategy = s.text("strategy");
    r.tool_version = s.text("tool_version");
    r.host = s.text("host");
    r.cache_mode = s.text("cache_mode");
    out.push_back(std::move(r));
  }
  return out;
}

std::vector<Measurement> Store::measurements(const MeasurementFilter& f) const {
  // NULL parameters mean "any": one statement serves every filter combination.
  Statement s(connection_,
              "SELECT * FROM measurements WHERE (:run IS NULL OR run_id = :run) AND (:device IS "
              "NULL OR device_id = :device) AND (:problem IS NULL OR problem_id = :problem) AND "
              "(:kernel IS NULL OR kernel_id = :kernel) AND (:status IS NULL OR status = "
              ":status) ORDER BY id");
  s.bind(":run", f.run_id).bind(":device", f.device_id).bind(":problem", f.problem_id);
  s.bind(":kernel", f.kernel_id);
  if (f.status) {
    s.bind(":status", to_string(*f.status));
  } else {
    s.bind_null(":status");
  }
  // Columns by index, resolved once: a by-name read scans the names, and a tuner's training
  // database holds hundreds of thousands of rows.
  const auto column = [&s](const char* name) { return s.column_index(name); };
  const int id = column("id"), run = column("run_id"), device = column("device_id"),
            problem = column("problem_id"), kernel = column("kernel_id"),
            status_text = column("status"), message = column("message"), n = column("n"),
            median = column("median_ns"), min = column("min_ns"), p10 = column("p10_ns"),
            p90 = column("p90_ns"), max_error = column("max_error"), gbps = column("gbps"),
            gflops = column("gflops");
  const auto optional_real = [&s](int c) {
    return s.is_null(c) ? std::nullopt : std::optional<double>(s.real(c));
  };
  std::vector<Measurement> out;
  while (s.step()) {
    Measurement m;
    m.id = s.integer(id);
    m.run_id = s.integer(run);
    m.device_id = s.integer(device);
    m.problem_id = s.integer(problem);
    m.kernel_id = s.integer(kernel);
    const auto status = parse_status(s.text_view(status_text));
    if (!status) throw Error(label() + ": measurement " + std::to_string(m.id) + ": bad status");
    m.status = *status;
    m.message = s.text_view(message);
    m.n = static_cast<uint32_t>(s.integer(n));
    m.median_ns = optional_real(median);
    m.min_ns = optional_real(min);
    m.p10_ns = optional_real(p10);
    m.p90_ns = optional_real(p90);
    m.max_error = optional_real(max_error);
    m.gbps = optional_real(gbps);
    m.gflops = optional_real(gflops);
    out.push_back(std::move(m));
  }
  return out;
}

std::vector<BestRow> Store::best(int64_t device_id) const {
  Statement s(connection_, "SELECT * FROM best WHERE device_id = :device ORDER BY problem_id");
  s.bind(":device", device_id);
  std::vector<BestRow> out;
  while (s.step()) out.push_back(read_best(s));
  return out;
}

std::optional<BestRow> Store::best(int64_t device_id, int64_t problem_id) const {
  // Filtered by the partition columns, so SQLite ranks one problem's rows, not the table's.
  Statement s(connection_,
              "SELECT * FROM best WHERE device_id = :device AND problem_id = :problem");
  s.bind(":device", device_id).bind(":problem", problem_id);
  if (!s.step()) return std::nullopt;
  return read_best(s);
}

std::vector<BestRow> Store::best() const {
  Statement s(connection_, "SELECT * FROM best ORDER BY device_id, problem_id");
  std::vector<BestRow> out;
  while (s.step()) out.push_back(read_best(s));
  return out;
}

Catalog Store::catalog(bool with_spirv) const {
  // A read transaction pins one snapshot of the file while a writer may be appending.
  // Inside a caller's transaction that snapshot is already pinned.
  const bool own = sqlite3_get_autocommit(connection_.get()) != 0;
  if (own) connection_.exec("BEGIN");
  try {
    Catalog c;
    c.devices = devices();
    Statement s(connection_, "SELECT * FROM kernels ORDER BY id");
    while (s.step()) c.kernels.push_back(read_kernel(s, with_spirv));
    // Thousands of rows: columns resolved once instead of by name per row.
    Statement p(connection_,
                "SELECT id, op, dtype, m, n, k, group_size, heads, kv_heads FROM problems ORDER BY id");
    const int id = p.column_index("id"), op = p.column_index("op"), dtype = p.column_index("dtype"),
              m = p.column_index("m"), n = p.column_index("n"), k = p.column_index("k"),
              gs = p.column_index("group_size"), heads = p.column_index("heads"),
              kv_heads = p.column_index("kv_heads");
    while (p.step()) {
      c.problems.push_back(Problem{p.integer(id), std::string(p.text_view(op)),
                                   std::string(p.text_view(dtype)), static_cast<uint32_t>(p.integer(m)),
                                   static_cast<uint32_t>(p.integer(n)), static_cast<uint32_t>(p.integer(k)),
                                   static_cast<uint32_t>(p.integer(gs)),
                                   static_cast<uint32_t>(p.integer(heads)),
                                   static_cast<uint32_t>(p.integer(kv_heads))});
    }
    fast_best_rows(connection_, kRankedPerProblem, c);
    if (own) connection_.exec("COMMIT");
    return c;
  } catch (...) {
    // A read transaction has nothing to undo; a failed ROLLBACK must not mask the cause.
    if (own) sqlite3_exec(connection_.get(), "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
}

ImportStats Store::merge_from(const Store& other) {
  return import_json(*this, export_json(other), other.label());
}

}  // namespace vktune::db
