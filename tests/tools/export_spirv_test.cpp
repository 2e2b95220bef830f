// A winners export carries SPIR-V for every kernel a runtime can answer with (the winners' and
// the head of each ranked list), compiled by `vktune export --winners-only` where the database
// holds none; the shipped winners files are checked the same way.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "db/base64.h"
#include "db/records.h"
#include "tests/tools/report_fixture.h"
#include "tests/tools/run_vktune.h"

namespace vktune::report {
namespace {

using namespace vktune::testing;
using nlohmann::json;

// Indices of the kernels a runtime loading `doc` can answer with.
std::set<size_t> answerable_kernels(const json& doc) {
  std::set<size_t> out;
  for (const json& w : doc["winners"]) out.insert(w[2].get<size_t>());
  const json& ranked = doc["ranked"];
  for (size_t i = 0, in_list = 0; i < ranked.size(); ++i) {
    const bool same = i > 0 && ranked[i][0] == ranked[i - 1][0] && ranked[i][1] == ranked[i - 1][1];
    in_list = same ? in_list + 1 : 0;
    if (in_list < db::kRankedPickable) out.insert(ranked[i][2].get<size_t>());
  }
  return out;
}

// Every answerable kernel has SPIR-V (starting with its magic number); no other kernel has any.
void expect_spirv_for_every_answer(const json& doc, const std::string& what) {
  const std::set<size_t> answerable = answerable_kernels(doc);
  ASSERT_FALSE(answerable.empty()) << what;
  const json& kernels = doc["kernels"];
  for (size_t i = 0; i < kernels.size(); ++i) {
    const json& k = kernels[i];
    const std::string key = k["variant_key"].get<std::string>();
    if (!answerable.count(i)) {
      EXPECT_TRUE(k["spirv"].is_null()) << what << ": " << key << " is never an answer";
      continue;
    }
    ASSERT_TRUE(k["spirv"].is_string()) << what << ": " << key << " has no SPIR-V";
    const auto bytes = db::base64_decode(k["spirv"].get<std::string>());
    ASSERT_TRUE(bytes && bytes->size() > 20) << what << ": " << key;
    EXPECT_EQ((*bytes)[0], 0x03);  // 0x07230203, little-endian
    EXPECT_EQ((*bytes)[3], 0x07);
  }
}

TEST(ExportSpirv, WinnersExportCompilesWhatTheDatabaseLacks) {
  TempDir dir;
  {
    db::Store a = db::Store::open(dir.file("a.db"));
    build_synthetic(a);  // kernels stored without SPIR-V
  }
  const VktuneResult r = vktune("export --db " + quoted(dir.file("a.db")) + " --winners-only -o " +
                                quoted(dir.file("w.json")));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  expect_spirv_for_every_answer(json::parse(slurp(dir.file("w.json"))), "synthetic");
  // The full export carries what the database holds, nothing compiled.
  ASSERT_EQ(vktune("export --db " + quoted(dir.file("a.db")) + " -o " + quoted(dir.file("a.json")))
                .exit_code,
            0);
  for (const json& k : json::parse(slurp(dir.file("a.json")))["kernels"]) {
    EXPECT_TRUE(k["spirv"].is_null());
  }
}

TEST(ExportSpirv, ShippedWinnersFilesCarrySpirvForEveryAnswer) {
  for (const char* name : {"llvmpipe-lavapipe", "nvidia-h100-80gb-hbm3"}) {
    const std::string path = std::string(VKTUNE_SOURCE_DIR) + "/db/tuned/" + name + ".winners.json";
    expect_spirv_for_every_answer(json::parse(slurp(path)), name);
  }
}

}  // namespace
}  // namespace vktune::report
