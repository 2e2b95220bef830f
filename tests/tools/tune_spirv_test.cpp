// A tuning database holds the SPIR-V of every answer a runtime can give from it: each problem's
// winner and the head of its ranked list (an untuned shape is answered from its neighbours'
// heads), and of nothing else, so an engine reading the .db directly can dispatch any answer.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>

#include "tests/temp_dir.h"
#include "tests/tools/answerable_spirv.h"
#include "tests/tools/run_vktune.h"

namespace vktune::testing {
namespace {

TEST(VktuneTuneSpirv, TheDatabaseHoldsSpirvForEveryAnswer) {
  TempDir dir;
  const std::string db = quoted(dir.file("a.db"));
  const VktuneResult tune = vktune("tune --shapes smoke --ops rms_norm --m 1,2 --plain "
                                   "--strategy exhaustive --variant-budget 0.01 --db " + db);
  ASSERT_EQ(tune.exit_code, 0) << tune.output;
  ASSERT_EQ(vktune("export --db " + db + " -o " + quoted(dir.file("a.json"))).exit_code, 0);
  std::ifstream in(dir.file("a.json"));
  const nlohmann::json doc = nlohmann::json::parse(std::string(std::istreambuf_iterator<char>(in), {}));
  // Two problems of 10 variants: ranked heads of 3 beyond the winners, so more than 2 kernels.
  EXPECT_GT(answerable_kernels(doc).size(), 2u);
  expect_spirv_for_every_answer(doc, "a tuning database");
}

}  // namespace
}  // namespace vktune::testing
