// Shared test fixtures for db/ and runtime/ tests: a per-test temp dir and small fake records.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <unistd.h>
#include <vector>

#include "db/records.h"
#include "db/store.h"
#include "tests/temp_dir.h"

namespace vktune::testing {

// One device, kernel, problem, run and ok measurement, in the columns every schema version has:
// what a database an older vktune left holds (migration tests).
inline constexpr const char* kOldDatabaseRows = R"sql(
      INSERT INTO devices (vendor_id, device_id, name, driver_id, driver_version,
                           pipeline_cache_uuid, device_type)
        VALUES (4318, 9860, 'Old GPU', 4, 100, '0123456789abcdef0123456789abcdef', 'discrete');
      INSERT INTO kernels (family, variant_key, source_hash) VALUES ('q4gsw_gemv', 'g[wg=64]', 'h');
      INSERT INTO problems (op, dtype, m, n, k, group_size) VALUES ('q4gsw', 'f32', 1, 64, 64, 32);
      INSERT INTO runs (uuid, started_at) VALUES ('r1', '2024-01-01T00:00:00Z');
      INSERT INTO measurements (run_id, device_id, problem_id, kernel_id, status, median_ns)
        VALUES (1, 1, 1, 1, 'ok', 123.0);
)sql";


inline void write_file(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << bytes;
}

inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

inline db::DeviceRecord fake_device(uint32_t vendor = 0x10de, uint32_t device = 0x2684,
                                    uint32_t driver_version = 100,
                                    std::string type = "discrete") {
  db::DeviceRecord d;
  d.vendor_id = vendor;
  d.device_id = device;
  d.name = "Fake GPU " + std::to_string(device);
  d.driver_id = 4;
  d.driver_version = driver_version;
  d.driver_version_text = "1.0." + std::to_string(driver_version);
  d.driver_info = "fake";
  d.api_version = (1u << 22) | (3u << 12);
  d.pipeline_cache_uuid = "0123456789abcdef0123456789abcdef";
  d.device_type = std::move(type);
  d.subgroup_size = 32;
  d.properties_json = R"({"maxComputeSharedMemorySize":49152})";
  return d;
}

inline db::KernelRecord fake_kernel(const std::string& key, const std::string& constraints =
                                                                R"({"k_multiple":2})") {
  db::KernelRecord k;
  k.family = key.substr(0, key.find('['));
  k.variant_key = key;
  k.knobs_json = R"({"layout":"raw","wg":128})";
  k.constraints_json = constraints;
  k.layout = "raw";
  k.workgroup_size = 128;
  k.source_hash = "hash-" + key;
  // As its family does, and the same for every copy of one key: a tiled kernel's sizes are
  // specialisation constants.
  if (key.starts_with("q4gsw_tiled")) k.specialization_json = "[[0,128],[1,4]]";
  // A SPIR-V header (magic, version 1.5, generator, bound, schema) and one word of 0xff bytes:
  // what an import accepts, with bytes that no text encoding would carry through.
  k.spirv = std::vector<uint8_t>{0x03, 0x02, 0x23, 0x07, 0x00, 0x05, 0x01, 0x00, 0, 0, 0, 0,
                                 0x01, 0,    0,    0,    0,    0,    0,    0,    0xff, 0xff, 0xff, 0xff};
  return k;
}

inline db::Problem fake_problem(uint32_t m, uint32_t n, uint32_t k, uint32_t gs = 32,
                                std::string op = "q4gsw") {
  db::Problem p;
  p.op = std::move(op);
  p.dtype = "f32";
  p.m = m;
  p.n = n;
  p.k = k;
  p.group_size = gs;
  return p;
}

inline db::Coverage coverage(int64_t run, int64_t device, int64_t problem, uint32_t legal,
                             std::vector<uint32_t> stages, bool budget_cut) {
  db::Coverage c;
  c.run_id = run;
  c.device_id = device;
  c.problem_id = problem;
  c.legal = legal;
  c.stages = std::move(stages);
  c.budget_cut = budget_cut;
  return c;
}

inline db::Measurement ok_measurement(int64_t run, int64_t device, int64_t problem,
                                      int64_t kernel, double median_ns) {
  db::Measurement m;
  m.run_id = run;
  m.device_id = device;
  m.problem_id = problem;
  m.kernel_id = kernel;
  m.status = db::Status::ok;
  m.n = 10;
  m.median_ns = median_ns;
  m.min_ns = median_ns * 0.9;
  m.p10_ns = median_ns * 0.95;
  m.p90_ns = median_ns * 1.1;
  m.max_error = 0.01;
  m.gbps = 100.0;
  m.gflops = 50.0;
  return m;
}

// A small populated store: two devices, two kernels (the second with specialisation constants),
// two problems, one run, results, and coverage of two (device, problem) pairs: one complete, one
// cut with nothing timed.
inline void populate(db::Store& s, const std::string& run_uuid = "run-a") {
  const auto d1 = s.upsert_device(fake_device());
  const auto d2 = s.upsert_device(fake_device(0x1002, 0x744c, 7, "discrete"));
  const auto k1 = s.upsert_kernel(fake_kernel("q4gsw_gemv[layout=raw,wg=64]"));
  const auto k2 = s.upsert_kernel(fake_kernel("q4gsw_tiled[layout=raw,tm=4]"));
  const auto p1 = s.upsert_problem(fake_problem(1, 4096, 4096));
  const auto p2 = s.upsert_problem(fake_problem(64, 4096, 4096));
  db::RunRecord r;
  r.uuid = run_uuid;
  r.started_at = "2024-05-01T12:00:00Z";
  r.strategy = "exhaustive";
  r.tool_version = "0.1.0";
  r.host = "test";
  r.cache_mode = "cold";
  const auto run = s.begin_run(r);
  s.add_measurement(ok_measurement(run, d1, p1, k1, 1000));
  s.add_measurement(ok_measurement(run, d1, p1, k2, 2000));
  s.add_measurement(ok_measurement(run, d1, p2, k2, 5000));
  s.add_measurement(ok_measurement(run, d2, p1, k2, 900));
  db::Measurement bad;
  bad.run_id = run;
  bad.device_id = d2;
  bad.problem_id = p2;
  bad.kernel_id = k1;
  bad.status = db::Status::compile_error;
  bad.message = "shared memory exceeded";
  s.add_measurement(bad);
  s.put_coverage(coverage(run, d1, p1, 2, {2, 1}, false));
  s.put_coverage(coverage(run, d2, p2, 2, {}, true));
  s.end_run(run, "2024-05-01T12:30:00Z");
  s.raise_copy_bandwidth(d1, 850.5);
}

// A version 2 export document (db/json_io.h) as version 1 wrote it: each row of
// measurements, coverage and winners an object that repeats its device and problem (and
// kernel) as natural-key objects and names its run by uuid, no "columns". For tests of the
// version 1 reader, and to compare rows of different documents by natural key.
inline nlohmann::json v1_document(const nlohmann::json& v2) {
  using nlohmann::json;
  json v1 = v2;
  v1["version"] = 1;
  v1.erase("columns");
  v1.erase("ranked");  // version 2 added it
  auto ref = [&](const std::string& column, const json& index) -> json {
    const auto i = index.get<size_t>();
    if (column == "run") return v2["runs"][i]["uuid"];
    if (column == "problem") return v2["problems"][i];
    json out = json::object();
    if (column == "kernel") {
      for (const char* f : {"variant_key", "source_hash"}) out[f] = v2["kernels"][i][f];
    } else {  // device
      for (const char* f : {"vendor_id", "device_id", "driver_id", "driver_version",
                            "pipeline_cache_uuid", "name"})
        out[f] = v2["devices"][i][f];
    }
    return out;
  };
  for (const char* section : {"measurements", "coverage", "winners"}) {
    if (!v2.contains(section)) continue;
    const json& columns = v2["columns"][section];
    json& rows = v1[section] = json::array();
    for (const json& row : v2[section]) {
      json o = json::object();
      for (size_t c = 0; c < columns.size(); ++c) {
        const std::string name = columns[c];
        const bool is_ref =
            name == "run" || name == "device" || name == "problem" || name == "kernel";
        o[name] = is_ref ? ref(name, row[c]) : row[c];
      }
      rows.push_back(std::move(o));
    }
  }
  return v1;
}

}  // namespace vktune::testing
