// Fake devices and tuned problems for runtime tests: every fallback path of select() has a
// case here. Built through db::Store so the runtime reads what the tuner writes.
#pragma once

#include <memory>
#include <string>
#include <tuple>

#include "db/store.h"
#include "runtime/snapshot.h"
#include "runtime/stored_device.h"
#include "tests/db/fixtures.h"

namespace vktune::testing {

inline constexpr const char* kUuidA = "00112233445566778899aabbccddeeff";

inline runtime::DeviceQuery query_for(const db::DeviceRecord& d) {
  runtime::DeviceQuery q = runtime::stored_device_query(d);
  q.name = "query";
  return q;
}

// A snapshot of `store`'s winners, labelled `source`; a failure to build fails the test.
inline std::shared_ptr<const runtime::Snapshot> snapshot_of(const db::Store& store,
                                                            std::string_view source) {
  std::string error;
  auto s = runtime::Snapshot::from_catalog(store.catalog(), &error, source);
  EXPECT_TRUE(s) << error;
  return s;
}

// Device A (NVIDIA 0x2684, driver 100), A-old (same device, driver 90), B (NVIDIA 0x2700,
// discrete) and C (AMD 0x1111, integrated).
struct FakeDb {
  db::Store store = db::Store::open_memory();
  db::DeviceRecord a = device(0x10de, 0x2684, 100, "discrete", "A");
  db::DeviceRecord a_old = device(0x10de, 0x2684, 90, "discrete", "A-old");
  db::DeviceRecord b = device(0x10de, 0x2700, 7, "discrete", "B");
  db::DeviceRecord c = device(0x1002, 0x1111, 3, "integrated", "C");

  static db::DeviceRecord device(uint32_t vendor, uint32_t id, uint32_t driver, const char* type,
                                 const char* name) {
    db::DeviceRecord d = fake_device(vendor, id, driver, type);
    // Whole strings moved in: GCC 12 warns (-Wrestrict, a known false positive) on a literal
    // assigned to a string here.
    d.name = std::string(name);
    d.pipeline_cache_uuid = std::string(kUuidA);
    return d;
  }

  FakeDb() {
    const auto gemv = store.upsert_kernel(fake_kernel(
        "q4gsw_gemv[layout=raw,wg=128,rows=4,load=u32x4,reduce=subgroup]",
        R"({"k_multiple":8,"gs_multiple":8,"n_multiple":1,"m_max":1,"m_min":1})"));
    db::KernelRecord tiled_record = fake_kernel(
        "q4gsw_tiled[layout=packed,tm=8,tn=4,wg=128,bk=32]",
        R"({"k_multiple":32,"gs_multiple":2,"n_multiple":8,"m_max":0,"m_min":1})");
    tiled_record.specialization_json = "[[0,128],[1,8],[2,4],[3,32]]";
    const auto tiled = store.upsert_kernel(tiled_record);
    const auto small_m = store.upsert_kernel(fake_kernel(
        "q4gsw_gemv[layout=packed,wg=64,rows=8,load=u32x4,reduce=shared]",
        R"({"k_multiple":8,"gs_multiple":8,"n_multiple":1,"m_max":4,"m_min":1})"));
    db::KernelRecord rms = fake_kernel("rms_norm[vec=4,wg=512]", R"({"n_multiple":4})");
    rms.spirv.reset();
    const auto rms_id = store.upsert_kernel(rms);
    const auto ia = store.upsert_device(a);
    const auto ia_old = store.upsert_device(a_old);
    store.upsert_device(b);
    const auto ic = store.upsert_device(c);
    const auto p1 = store.upsert_problem(fake_problem(1, 4096, 4096));
    const auto p64 = store.upsert_problem(fake_problem(64, 4096, 4096));
    const auto p4 = store.upsert_problem(fake_problem(4, 1024, 1024));
    const auto prms = store.upsert_problem(fake_problem(8, 4096, 4096, 0, "rms_norm"));
    const auto p2k = store.upsert_problem(fake_problem(1, 4096, 2048));
    const auto run = store.begin_run({});
    store.add_measurement(ok_measurement(run, ia_old, p2k, tiled, 800));
    store.add_measurement(ok_measurement(run, ia, p1, gemv, 1000));
    store.add_measurement(ok_measurement(run, ia, p64, tiled, 9000));
    store.add_measurement(ok_measurement(run, ia, p4, small_m, 300));
    store.add_measurement(ok_measurement(run, ia_old, p1, tiled, 1500));
    store.add_measurement(ok_measurement(run, ic, p64, tiled, 20000));
    store.add_measurement(ok_measurement(run, ic, prms, rms_id, 700));
  }

  std::shared_ptr<const runtime::Snapshot> snapshot(std::string_view source = "catalog") const {
    return snapshot_of(store, source);
  }
};

// One device with two neighbouring problems that each measured three variants and disagree on
// the best: M=4 (tiled-a 100, tiled-b 120, tiled-c 400) and M=16 (tiled-b 100, tiled-c 150,
// tiled-a 300). For M=8 the single nearest winner is tiled-a (the tie goes to the smaller
// M); ranked over both it is tiled-b.
struct RankedDb {
  db::Store store = db::Store::open_memory();
  db::DeviceRecord a = FakeDb::device(0x10de, 0x2684, 100, "discrete", "A");

  RankedDb() {
    const auto ta = store.upsert_kernel(fake_kernel("q4gsw_tiled[layout=raw,tm=4,tn=4,wg=64,bk=0]"));
    const auto tb = store.upsert_kernel(fake_kernel("q4gsw_tiled[layout=raw,tm=8,tn=4,wg=64,bk=0]"));
    const auto tc = store.upsert_kernel(fake_kernel("q4gsw_tiled[layout=raw,tm=2,tn=4,wg=64,bk=0]"));
    const auto device = store.upsert_device(a);
    const auto p4 = store.upsert_problem(fake_problem(4, 4096, 4096));
    const auto p16 = store.upsert_problem(fake_problem(16, 4096, 4096));
    const auto run = store.begin_run({});
    for (const auto& [problem, kernel, ns] :
         {std::tuple{p4, ta, 100.0}, {p4, tb, 120.0}, {p4, tc, 400.0}, {p16, tb, 100.0},
          {p16, tc, 150.0}, {p16, ta, 300.0}}) {
      store.add_measurement(ok_measurement(run, device, problem, kernel, ns));
    }
  }

  std::shared_ptr<const runtime::Snapshot> snapshot(std::string_view source = "catalog") const {
    return snapshot_of(store, source);
  }
};

// A user's own tuning of device A, to layer over FakeDb as the shipped system database: the
// problem FakeDb tunes as M=1 N=4096 K=4096 (gemv, 1000 ns) with another winner (the packed
// gemv at 900 ns), and nothing else.
struct UserDb {
  db::Store store = db::Store::open_memory();
  db::DeviceRecord a = FakeDb::device(0x10de, 0x2684, 100, "discrete", "A");
  static constexpr const char* kWinner =
      "q4gsw_gemv[layout=packed,wg=64,rows=8,load=u32x4,reduce=shared]";

  UserDb() {
    const auto kernel = store.upsert_kernel(fake_kernel(
        kWinner, R"({"k_multiple":8,"gs_multiple":8,"n_multiple":1,"m_max":4,"m_min":1})"));
    const auto device = store.upsert_device(a);
    const auto problem = store.upsert_problem(fake_problem(1, 4096, 4096));
    store.add_measurement(ok_measurement(store.begin_run({}), device, problem, kernel, 900));
  }

  std::shared_ptr<const runtime::Snapshot> snapshot(std::string_view source = "user") const {
    return snapshot_of(store, source);
  }
};

inline runtime::ProblemQuery q4(uint32_t m, uint32_t n, uint32_t k, uint32_t gs = 32) {
  return runtime::ProblemQuery{"q4gsw", "f32", m, n, k, gs};
}

}  // namespace vktune::testing
