// The C API: the same answers as the C++ API, NULL-safety, and a caller compiled as C.
#include "runtime/vktune_runtime.h"

#include <gtest/gtest.h>

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

TEST(CApi, ErrorMessageIsTruncatedSafely) {
  char err[8];
  std::memset(err, 'x', sizeof err);
  EXPECT_EQ(vktune_snapshot_load("/nonexistent/file.db", err, sizeof err), nullptr);
  EXPECT_EQ(err[7], '\0');
  EXPECT_EQ(std::strlen(err), 7u);
}

}  // namespace
}  // namespace vktune::runtime
