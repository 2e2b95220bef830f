// A winners export carries SPIR-V for every kernel a runtime can answer with (the winners' and
// the head of each ranked list), compiled by `vktune export --winners-only` where the database
// holds none; the shipped winners files are checked the same way.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "db/database_file.h"
#include "tests/tools/answerable_spirv.h"
#include "tests/tools/report_fixture.h"
#include "tests/tools/run_vktune.h"

namespace vktune::report {
namespace {

using namespace vktune::testing;
using nlohmann::json;

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
  for (const char* name : {"llvmpipe-lavapipe", "nvidia-h100-80gb-hbm3", "nvidia-h200"}) {
    const std::string path =
        std::string(VKTUNE_SOURCE_DIR) + "/db/tuned/" + name + ".winners.json.zst";
    const db::DatabaseContent content = db::database_content(db::read_regular_file(path), path);
    expect_spirv_for_every_answer(json::parse(content.text()), name);
  }
}

}  // namespace
}  // namespace vktune::report
