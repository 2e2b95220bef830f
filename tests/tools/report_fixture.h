// A synthetic kernel database with numbers chosen by hand, so that every summary figure the
// tests assert (winners, speedups, geometric means, heat-map cells) is known exactly.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "db/records.h"
#include "db/store.h"
#include "tests/db/fixtures.h"
#include "tests/temp_dir.h"

namespace vktune::testing {


inline std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

inline size_t count(const std::string& haystack, const std::string& needle) {
  size_t n = 0;
  for (size_t pos = haystack.find(needle); pos != std::string::npos;
       pos = haystack.find(needle, pos + needle.size())) {
    ++n;
  }
  return n;
}

// Keys of the synthetic database.
inline constexpr const char* kNaive64 = "q4gsw_naive[wg=64]";
inline constexpr const char* kNaive128 = "q4gsw_naive[wg=128]";
inline constexpr const char* kGemvFixed =
    "q4gsw_gemv[layout=raw,wg=64,rows=1,load=u32,reduce=shared]";
inline constexpr const char* kGemvTuned =
    "q4gsw_gemv[layout=packed,wg=128,rows=4,load=u32x4,reduce=subgroup]";
inline constexpr const char* kTiledFixed = "q4gsw_tiled[layout=raw,tm=4,tn=4,wg=64,bk=0]";
inline constexpr const char* kTiled24 = "q4gsw_tiled[layout=raw,tm=2,tn=4,wg=64,bk=0]";
inline constexpr const char* kTiled88 = "q4gsw_tiled[layout=packed,tm=8,tn=8,wg=64,bk=32]";
inline constexpr const char* kTiled88Wide = "q4gsw_tiled[layout=raw,tm=8,tn=8,wg=128,bk=0]";
inline constexpr const char* kTiled11 = "q4gsw_tiled[layout=raw,tm=1,tn=1,wg=64,bk=0]";
inline constexpr const char* kTiledBroken = "q4gsw_tiled[layout=raw,tm=8,tn=8,wg=256,bk=64]";
inline constexpr const char* kRmsFixed = "rms_norm[vec=4,wg=256]";
inline constexpr const char* kRms512 = "rms_norm[vec=4,wg=512]";

inline constexpr const char* kDevice1Name = "Fake GPU One";
// Markup characters, so the tests can check escaping.
inline constexpr const char* kDevice2Name = "Test <GPU> & \"Co\"";

inline db::DeviceRecord synthetic_device(uint32_t device_id, std::string name) {
  db::DeviceRecord d;
  d.vendor_id = 0x10de;
  d.device_id = device_id;
  d.name = std::move(name);
  d.driver_id = 4;
  d.driver_version = 0x91000000 + device_id;
  d.driver_version_text = "580.1." + std::to_string(device_id);
  d.driver_info = "fake driver";
  d.api_version = (1u << 22) | (3u << 12);
  d.pipeline_cache_uuid = "0123456789abcdef0123456789abcdef";
  d.device_type = "discrete";
  d.subgroup_size = 32;
  return d;
}

inline db::KernelRecord synthetic_kernel(const std::string& key) {
  db::KernelRecord k;
  k.family = key.substr(0, key.find('['));
  k.variant_key = key;
  // knobs_json in declared order, derived from the key: "[a=1,b=x]" -> {"a":1,"b":"x"}.
  std::string knobs = "{";
  const std::string body = key.substr(key.find('[') + 1, key.size() - key.find('[') - 2);
  size_t pos = 0;
  while (pos < body.size()) {
    size_t comma = body.find(',', pos);
    if (comma == std::string::npos) comma = body.size();
    const std::string kv = body.substr(pos, comma - pos);
    const std::string name = kv.substr(0, kv.find('='));
    const std::string value = kv.substr(kv.find('=') + 1);
    const bool numeric = value.find_first_not_of("0123456789") == std::string::npos;
    if (knobs.size() > 1) knobs += ",";
    knobs += "\"" + name + "\":" + (numeric ? value : "\"" + value + "\"");
    pos = comma + 1;
  }
  k.knobs_json = knobs + "}";
  k.constraints_json = R"({"k_multiple":2,"gs_multiple":2,"n_multiple":1,"m_max":0,"m_min":1})";
  k.layout = key.find("packed") != std::string::npos ? "packed" : "raw";
  k.workgroup_size = 64;
  k.source_hash = "src-" + key;
  return k;
}

// The hand-made numbers (ns). Winners, fixed routing and naive per problem on device 1:
//   P1 q4gsw M=1:   winner gemv tuned 20000 (500 GB/s), fixed gemv 40000 (x2), naive 300000 (x15)
//   P2 q4gsw M=4:   winner tiled 2x4 30000, fixed tiled 4x4 90000 (x3), naive 600000 (x20)
//   P3 q4gsw M=64:  winner tiled 8x8 100000, fixed 200000 (x2), naive 4000000 (x40);
//                   tiles 2x4 160000, 4x4 200000, 8x8 100000 (8x8 wg128 150000 loses);
//                   1x1 wrong in run 2 (ok in run 1), one compile_error
//   P4 q4gsw M=256: winner tiled 8x8 100000, fixed 800000 (x8), naive 8000000 (x80)
//   P5 q4gsw M=128: winner tiled 8x8 50000; fixed and naive not measured
//   P6 rms_norm M=8 N=4096: winner wg512 4000 (run 2), fixed vec4 wg256 8000 (x2)
// Geomean over fixed: M 1 -> 2, 2-8 -> 3, 16-64 -> 2, >=128 -> 8, all -> 192^(1/5).
// Device 2 measured P1 only: winner gemv tuned 25000, fixed 50000 (x2).
// Device 1 copy bandwidth 1000 GB/s; device 2 has none.
// Coverage (device 1): P1 5 of 5 legal measured, complete; P3 7 of 12, cut by run 1's budget;
// P6 cut in run 1 after 1 of 2, finished by run 2 (a --fill run): complete. P2, P4, P5 and
// device 2 have no coverage record, as in a database from before schema v3: unknown.
struct SyntheticIds {
  int64_t device1 = 0, device2 = 0, run1 = 0, run2 = 0;
  int64_t measurements = 0;  // stored measurement rows
};

inline SyntheticIds build_synthetic(db::Store& s) {
  SyntheticIds ids;
  ids.device1 = s.upsert_device(synthetic_device(0x2684, kDevice1Name));
  ids.device2 = s.upsert_device(synthetic_device(0x2704, kDevice2Name));
  s.raise_copy_bandwidth(ids.device1, 1000.0);

  auto kernel = [&](const char* key) { return s.upsert_kernel(synthetic_kernel(key)); };
  const int64_t naive64 = kernel(kNaive64), naive128 = kernel(kNaive128);
  const int64_t gemv_fixed = kernel(kGemvFixed), gemv_tuned = kernel(kGemvTuned);
  const int64_t tiled_fixed = kernel(kTiledFixed), tiled24 = kernel(kTiled24);
  const int64_t tiled88 = kernel(kTiled88), tiled88w = kernel(kTiled88Wide);
  const int64_t tiled11 = kernel(kTiled11), tiled_broken = kernel(kTiledBroken);
  const int64_t rms_fixed = kernel(kRmsFixed), rms512 = kernel(kRms512);

  const int64_t p1 = s.upsert_problem(fake_problem(1, 4096, 4096, 32, "q4gsw"));
  const int64_t p2 = s.upsert_problem(fake_problem(4, 4096, 4096, 32, "q4gsw"));
  const int64_t p3 = s.upsert_problem(fake_problem(64, 4096, 4096, 32, "q4gsw"));
  const int64_t p4 = s.upsert_problem(fake_problem(256, 4096, 4096, 32, "q4gsw"));
  const int64_t p5 = s.upsert_problem(fake_problem(128, 4096, 4096, 32, "q4gsw"));
  const int64_t p6 = s.upsert_problem(fake_problem(8, 4096, 4096, 0, "rms_norm"));

  db::RunRecord r;
  r.uuid = "run-one";
  r.started_at = "2024-05-01T12:00:00Z";
  r.strategy = "exhaustive";
  r.tool_version = "0.1.0";
  r.host = "ci";
  r.cache_mode = "cold";
  ids.run1 = s.begin_run(r);
  r.uuid = "run-two";
  r.started_at = "2024-05-02T12:00:00Z";
  r.strategy = "random";
  ids.run2 = s.begin_run(r);

  auto ok = [&](int64_t run, int64_t dev, int64_t prob, int64_t k, double ns, double gbps) {
    db::Measurement m = ok_measurement(run, dev, prob, k, ns);
    m.gbps = gbps;
    m.gflops = gbps / 4;
    s.add_measurement(m);
    ++ids.measurements;
  };
  auto failed = [&](int64_t run, int64_t dev, int64_t prob, int64_t k, db::Status st) {
    db::Measurement m;
    m.run_id = run;
    m.device_id = dev;
    m.problem_id = prob;
    m.kernel_id = k;
    m.status = st;
    m.message = "synthetic failure";
    s.add_measurement(m);
    ++ids.measurements;
  };
  const int64_t d1 = ids.device1, d2 = ids.device2, r1 = ids.run1, r2 = ids.run2;
  // P1
  ok(r1, d1, p1, naive64, 400000, 25);
  ok(r1, d1, p1, naive128, 300000, 33);
  ok(r1, d1, p1, gemv_fixed, 40000, 250);
  ok(r1, d1, p1, gemv_tuned, 25000, 400);
  ok(r2, d1, p1, gemv_tuned, 20000, 500);  // a re-measurement: its 20000 replaces run 1's
  ok(r1, d1, p1, tiled_fixed, 60000, 166);
  // P2
  ok(r1, d1, p2, naive64, 600000, 20);
  ok(r1, d1, p2, tiled_fixed, 90000, 120);
  ok(r1, d1, p2, tiled24, 30000, 360);
  // P3
  ok(r1, d1, p3, naive64, 4000000, 10);
  ok(r1, d1, p3, tiled_fixed, 200000, 90);
  ok(r1, d1, p3, tiled24, 160000, 110);
  ok(r1, d1, p3, tiled88, 100000, 180);
  ok(r1, d1, p3, tiled88w, 150000, 120);
  ok(r1, d1, p3, tiled11, 50000, 360);  // fast, but wrong in run 2: never counts
  failed(r2, d1, p3, tiled11, db::Status::wrong_result);
  failed(r1, d1, p3, tiled_broken, db::Status::compile_error);
  // P4
  ok(r1, d1, p4, naive64, 8000000, 5);
  ok(r1, d1, p4, tiled_fixed, 800000, 60);
  ok(r1, d1, p4, tiled88, 100000, 480);
  // P5
  ok(r1, d1, p5, tiled88, 50000, 600);
  // P6
  ok(r1, d1, p6, rms_fixed, 8000, 80);
  ok(r2, d1, p6, rms512, 4000, 160);
  // Device 2
  ok(r2, d2, p1, gemv_fixed, 50000, 200);
  ok(r2, d2, p1, gemv_tuned, 25000, 400);
  s.put_coverage(coverage(r1, d1, p1, 5, {5, 2}, false));
  s.put_coverage(coverage(r1, d1, p3, 12, {6, 2}, true));
  s.put_coverage(coverage(r1, d1, p6, 2, {1}, true));
  s.put_coverage(coverage(r2, d1, p6, 2, {1}, false));
  s.end_run(ids.run1, "2024-05-01T13:00:00Z");
  s.end_run(ids.run2, "2024-05-02T13:00:00Z");
  return ids;
}

}  // namespace vktune::testing
