// The C API: the same answers as the C++ API, NULL-safety, and a caller compiled as C.
#include "runtime/vktune_runtime.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>

#include "db/json_io.h"
#include "tests/runtime/fake_catalog.h"

extern "C" int vktune_c_smoke(const char* path, const vktune_device_query* tuned);
extern "C" int vktune_c_dispatch_smoke(void);

namespace vktune::runtime {
namespace {

vktune_device_query c_query(const DeviceQuery& q) {
  vktune_device_query c{};
  c.vendor_id = q.vendor_id;
  c.device_id = q.device_id;
  c.driver_id = q.driver_id;
  c.driver_version = q.driver_version;
  c.device_type = static_cast<int>(q.device_type);
  std::memcpy(c.pipeline_cache_uuid, q.pipeline_cache_uuid.data(), 16);
  c.name = "query";
  return c;
}

TEST(CApi, CallerCompiledAsC) {
  testing::TempDir dir;
  testing::FakeDb db;
  const std::string path = dir.file("k.json");
  testing::write_file(path, db::export_json_text(db.store));
  const vktune_device_query a = c_query(testing::query_for(db.a));
  EXPECT_EQ(vktune_c_smoke(path.c_str(), &a), 0) << "failed at c_api_smoke.c line";
}

TEST(CApi, DispatchContractFromC) {
  EXPECT_EQ(vktune_c_dispatch_smoke(), 0) << "failed at c_api_smoke.c line";
}

TEST(CApi, NullArgumentsAreErrorsNotCrashes) {
  vktune_selection s{};
  vktune_problem_query p{"q4gsw", nullptr, 64, 64, 64, 32};
  vktune_device_query d{};
  EXPECT_EQ(vktune_select(nullptr, nullptr, &p, &s), VKTUNE_INVALID_QUERY);
  EXPECT_EQ(vktune_select(nullptr, &d, &p, nullptr), VKTUNE_INVALID_QUERY);
  p.op = nullptr;
  EXPECT_EQ(vktune_select(nullptr, &d, &p, &s), VKTUNE_INVALID_QUERY);
  p.op = "q4gsw";
  // No snapshot: built-in routing, dtype NULL means f32.
  EXPECT_EQ(vktune_select(nullptr, &d, &p, &s), VKTUNE_OK);
  EXPECT_STREQ(s.variant_key, "q4gsw_tiled[layout=raw,tm=4,tn=4,wg=64,bk=0]");
  EXPECT_STREQ(s.matched_device_name, "");
  EXPECT_EQ(vktune_snapshot_load(nullptr, nullptr, 0), nullptr);
  vktune_snapshot_free(nullptr);
}

// A selection's specialisation constants reach C through vktune_select_ext, in order, pointing
// into the snapshot; a selection without them has none. vktune_selection keeps its layout, and
// an ext whose size was not set is refused, not written past.
TEST(CApi, SpecialisationReachesC) {
  testing::TempDir dir;
  testing::FakeDb db;
  const std::string path = dir.file("k.json");
  testing::write_file(path, db::export_json_text(db.store));
  vktune_snapshot* snapshot = vktune_snapshot_load(path.c_str(), nullptr, 0);
  ASSERT_NE(snapshot, nullptr);
  const vktune_device_query a = c_query(testing::query_for(db.a));
  vktune_problem_query p{"q4gsw", "f32", 64, 4096, 4096, 32};
  vktune_selection s{};
  vktune_selection_ext ext{sizeof ext, nullptr, 99};
  ASSERT_EQ(vktune_select_ext(snapshot, &a, &p, &s, &ext), VKTUNE_OK);
  EXPECT_STREQ(s.variant_key, "q4gsw_tiled[layout=packed,tm=8,tn=4,wg=128,bk=32]");
  ASSERT_EQ(ext.specialization_count, 4u);
  EXPECT_EQ(ext.specialization[1].constant_id, 1u);
  EXPECT_EQ(ext.specialization[1].value, 8u);
  EXPECT_EQ(ext.specialization[3].value, 32u);
  // vktune_select gives the same selection.
  vktune_selection plain{};
  ASSERT_EQ(vktune_select(snapshot, &a, &p, &plain), VKTUNE_OK);
  EXPECT_EQ(plain.spirv, s.spirv);
  EXPECT_STREQ(plain.variant_key, s.variant_key);
  p.m = 1;
  ASSERT_EQ(vktune_select_ext(snapshot, &a, &p, &s, &ext), VKTUNE_OK);
  EXPECT_EQ(ext.specialization, nullptr);
  EXPECT_EQ(ext.specialization_count, 0u);
  ASSERT_EQ(vktune_select_ext(snapshot, &a, &p, &s, nullptr), VKTUNE_OK);
  vktune_selection_ext unset{};
  unset.specialization_count = 7;
  EXPECT_EQ(vktune_select_ext(snapshot, &a, &p, &s, &unset), VKTUNE_INVALID_QUERY);
  EXPECT_NE(std::string(s.error).find("struct_size"), std::string::npos) << s.error;
  EXPECT_EQ(unset.specialization_count, 7u);
  vktune_snapshot_free(snapshot);
}

// sdpa through the C API: the head counts reach the runtime (a built-in answer for grouped-query
// decode attention), and head counts that do not divide are an invalid query, not an answer.
TEST(CApi, SdpaQueriesCarryTheirHeadCounts) {
  vktune_selection s{};
  vktune_device_query d{};
  vktune_problem_query p{"sdpa", "f32", 1, 2048, 128, 0, 32, 8};
  ASSERT_EQ(vktune_select(nullptr, &d, &p, &s), VKTUNE_OK) << s.error;
  EXPECT_EQ(std::string(s.family).rfind("sdpa_", 0), 0u) << s.family;
  p.kv_heads = 5;
  EXPECT_EQ(vktune_select(nullptr, &d, &p, &s), VKTUNE_INVALID_QUERY);
  EXPECT_NE(std::string(s.error).find("head"), std::string::npos) << s.error;
  p.kv_heads = 0;
  EXPECT_EQ(vktune_select(nullptr, &d, &p, &s), VKTUNE_INVALID_QUERY);
}

// Head counts belong to attention: on a linear or a norm they are an invalid query with a
// message, against a loaded database as well (where the head-count distance once divided by a
// group's kv_heads of 0), and never a crash.
TEST(CApi, HeadCountsOnALinearOrANormAreAnInvalidQuery) {
  testing::FakeDb db;
  const std::string json = db::export_json_text(db.store);
  char err[256] = {};
  vktune_snapshot* snap = vktune_snapshot_load_memory(json.data(), json.size(), "db", err, sizeof err);
  ASSERT_NE(snap, nullptr) << err;
  const vktune_device_query a = c_query(testing::query_for(db.a));
  const vktune_device_query other{};
  for (const vktune_snapshot* with : {static_cast<const vktune_snapshot*>(snap),
                                      static_cast<const vktune_snapshot*>(nullptr)}) {
    for (const vktune_device_query* d : {&a, &other}) {
      for (const auto& [heads, kv_heads] : {std::pair{1u, 1u}, {32u, 0u}, {0u, 8u}, {32u, 8u}}) {
        vktune_selection s{};
        const vktune_problem_query q4{"q4gsw", "f32", 1, 200, 256, 32, heads, kv_heads};
        EXPECT_EQ(vktune_select(with, d, &q4, &s), VKTUNE_INVALID_QUERY) << heads << "/" << kv_heads;
        EXPECT_NE(std::string(s.error).find("pass heads = kv_heads = 0"), std::string::npos)
            << s.error;
        const vktune_problem_query norm{"rms_norm", "f32", 4, 4096, 4096, 0, heads, kv_heads};
        EXPECT_EQ(vktune_select(with, d, &norm, &s), VKTUNE_INVALID_QUERY) << s.error;
      }
    }
  }
  vktune_selection s{};
  const vktune_problem_query plain{"q4gsw", "f32", 1, 200, 256, 32};
  EXPECT_EQ(vktune_select(snap, &a, &plain, &s), VKTUNE_OK) << s.error;
  vktune_snapshot_free(snap);
}

TEST(CApi, LayersFromMemoryNameTheLayerThatAnswered) {
  testing::FakeDb system_db;
  testing::UserDb user_db;
  const std::string system_json = db::export_json_text(system_db.store);
  const std::string user_json = db::export_json_text(user_db.store);
  char err[256] = {};
  vktune_snapshot* system =
      vktune_snapshot_load_memory(system_json.data(), system_json.size(), "system", err, sizeof err);
  ASSERT_NE(system, nullptr) << err;
  vktune_snapshot* user =
      vktune_snapshot_load_memory(user_json.data(), user_json.size(), nullptr, err, sizeof err);
  ASSERT_NE(user, nullptr) << err;
  const vktune_snapshot* stack[] = {user, system};
  vktune_snapshot* layered = vktune_snapshot_layer(stack, 2, err, sizeof err);
  ASSERT_NE(layered, nullptr) << err;
  vktune_snapshot_free(user);  // the layers share the data: the inputs may go
  vktune_snapshot_free(system);

  const vktune_device_query a = c_query(testing::query_for(user_db.a));
  vktune_problem_query p{"q4gsw", "f32", 1, 4096, 4096, 32};
  vktune_selection s{};
  ASSERT_EQ(vktune_select(layered, &a, &p, &s), VKTUNE_OK) << s.error;
  EXPECT_STREQ(s.variant_key, testing::UserDb::kWinner);
  EXPECT_EQ(s.layer, 0);
  EXPECT_STREQ(s.source, "memory");
  p.m = 64;
  ASSERT_EQ(vktune_select(layered, &a, &p, &s), VKTUNE_OK) << s.error;
  EXPECT_EQ(s.layer, 1);
  EXPECT_STREQ(s.source, "system");
  vktune_snapshot_free(layered);
}

TEST(CApi, TruncatedBufferIsAnError) {
  testing::FakeDb db;
  const std::string json = db::export_json_text(db.store);
  char err[256] = {};
  EXPECT_EQ(vktune_snapshot_load_memory(json.data(), json.size() / 2, "half", err, sizeof err),
            nullptr);
  EXPECT_EQ(std::string(err).rfind("half: not valid JSON", 0), 0u) << err;
  EXPECT_EQ(vktune_snapshot_load_memory(nullptr, 10, "x", err, sizeof err), nullptr);
  EXPECT_STREQ(err, "data is NULL");
  EXPECT_EQ(vktune_snapshot_layer(nullptr, 1, err, sizeof err), nullptr);
}

TEST(CApi, EnvironmentSwitchesApply) {
  testing::FakeDb db;
  const std::string json = db::export_json_text(db.store);
  char err[256] = {};
  vktune_snapshot* app = vktune_snapshot_load_memory(json.data(), json.size(), "app", err, sizeof err);
  ASSERT_NE(app, nullptr) << err;
  setenv("VKTUNE_FORCE_BUILTIN", "1", 1);
  vktune_snapshot* forced = vktune_snapshot_from_environment(&app, 1, err, sizeof err);
  unsetenv("VKTUNE_FORCE_BUILTIN");
  ASSERT_NE(forced, nullptr) << err;
  const vktune_device_query a = c_query(testing::query_for(db.a));
  const vktune_problem_query p{"q4gsw", "f32", 1, 4096, 4096, 32};
  vktune_selection s{};
  ASSERT_EQ(vktune_select(app, &a, &p, &s), VKTUNE_OK);
  EXPECT_EQ(s.device_match, VKTUNE_DEVICE_EXACT);
  ASSERT_EQ(vktune_select(forced, &a, &p, &s), VKTUNE_OK);
  EXPECT_EQ(s.device_match, VKTUNE_DEVICE_BUILTIN);
  EXPECT_EQ(s.layer, -1);
  vktune_snapshot_free(forced);
  vktune_snapshot_free(app);
}

TEST(CApi, ErrorMessageIsTruncatedSafely) {
  char err[8];
  std::memset(err, 'x', sizeof err);
  EXPECT_EQ(vktune_snapshot_load("/nonexistent/file.db", err, sizeof err), nullptr);
  EXPECT_EQ(err[7], '\0');
  EXPECT_EQ(std::strlen(err), 7u);
}

}  // namespace
}  // namespace vktune::runtime
