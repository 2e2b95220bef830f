// `vktune run-layer` on the device: a decode loop on a tiny model config (grouped-query
// attention, three layers) prints each step and the model's tokens per second, and passes the
// fp64 check of its last step; its attention stays one variant (no tuned buckets).
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "tests/temp_dir.h"
#include "tests/tools/run_vktune.h"

namespace vktune::testing {
namespace {

TEST(VktuneRunLayer, DecodeStepsOnATinyModel) {
  TempDir dir;
  std::ofstream(dir.file("config.json"))
      << R"({"hidden_size": 64, "intermediate_size": 128, "num_attention_heads": 4,
             "num_key_value_heads": 2, "head_dim": 16, "vocab_size": 256,
             "num_hidden_layers": 3, "rope_theta": 500000})";
  const VktuneResult r = vktune("run-layer --fixed --iterations 2 --context 6 --decode-steps 3 "
                                "--model '" + dir.file("config.json") + "'");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  for (const char* line : {"4 heads / 2 kv heads of 16", "decode: 3 steps, L = 6 .. 8",
                           "step 1 L=6", "step 3 L=8", "tok/s for 3 layers", "median step",
                           "attention", "attention route: unchanged: sdpa_", "PASS"}) {
    EXPECT_NE(r.output.find(line), std::string::npos) << line << "\n" << r.output;
  }
}

}  // namespace
}  // namespace vktune::testing
