// describe / describe_json name the variant and how it was found.
#include "runtime/describe.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/runtime/fake_catalog.h"

namespace vktune::runtime {
namespace {

using testing::FakeDb;
using testing::q4;
using testing::query_for;

TEST(Describe, TextNamesProvenance) {
  FakeDb db;
  const auto snap = db.snapshot();
  const std::string exact = describe(snap->select(query_for(db.a), q4(1, 4096, 4096)));
  EXPECT_NE(exact.find("q4gsw_gemv[layout=raw,wg=128"), std::string::npos) << exact;
  EXPECT_NE(exact.find("device: exact match, A"), std::string::npos) << exact;
  EXPECT_NE(exact.find("shape: exact, M=1 N=4096 K=4096 gs=32"), std::string::npos) << exact;
  EXPECT_NE(exact.find("1000 ns"), std::string::npos) << exact;
  DeviceQuery other = query_for(db.a);
  other.driver_version = 1;
  const std::string near = describe(snap->select(other, q4(1, 4000, 4096)));
  EXPECT_NE(near.find("flagged"), std::string::npos) << near;
  EXPECT_NE(near.find("log-distance 0.047"), std::string::npos) << near;  // N counts twice
  const std::string bad = describe(snap->select(other, q4(0, 1, 1)));
  EXPECT_NE(bad.find("invalid_query"), std::string::npos) << bad;
}

TEST(Describe, JsonKeepsKnobOrder) {
  FakeDb db;
  const auto snap = db.snapshot();
  const auto j = nlohmann::ordered_json::parse(
      describe_json(snap->select(DeviceQuery{}, q4(1, 4096, 4096))));
  EXPECT_EQ(j["status"], "ok");
  EXPECT_EQ(j["device_match"], "builtin");
  EXPECT_EQ(j["knobs"].dump(), R"({"layout":"raw","wg":64,"rows":1,"load":"u32","reduce":"shared"})");
  EXPECT_TRUE(j["median_ns"].is_null());
  EXPECT_EQ(j["matched_problem"]["m"], 0);
}

}  // namespace
}  // namespace vktune::runtime
