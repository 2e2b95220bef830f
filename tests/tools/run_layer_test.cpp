// `vktune run-layer` on the device: a decode loop on a tiny model config (grouped-query
// attention, three layers) prints each step and the model's tokens per second, and passes the
// fp64 check of its last step; its attention stays one variant (no tuned buckets). With
// --dtype f16 the same loop runs attention in fp16 over an fp16 KV cache. A tuned node shows its
// time alone beside its time in the layer.
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <string>

#include "tests/temp_dir.h"
#include "tests/tools/run_vktune.h"

namespace vktune::testing {
namespace {

// A grouped-query model of three tiny layers, written into `dir`; returns its path.
std::string tiny_config(const TempDir& dir) {
  std::ofstream(dir.file("config.json"))
      << R"({"hidden_size": 64, "intermediate_size": 128, "num_attention_heads": 4,
             "num_key_value_heads": 2, "head_dim": 16, "vocab_size": 256,
             "num_hidden_layers": 3, "rope_theta": 500000})";
  return dir.file("config.json");
}

TEST(VktuneRunLayer, DecodeStepsOnATinyModel) {
  TempDir dir;
  const VktuneResult r = vktune("run-layer --fixed --iterations 2 --context 6 --decode-steps 3 "
                                "--model '" + tiny_config(dir) + "'");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  for (const char* line : {"4 heads / 2 kv heads of 16", "decode: 3 steps, L = 6 .. 8",
                           "step 1 L=6", "step 3 L=8", "tok/s for 3 layers", "median step",
                           "attention", "attention route: unchanged: sdpa_", "PASS"}) {
    EXPECT_NE(r.output.find(line), std::string::npos) << line << "\n" << r.output;
  }
}

// The attention node asks for f16 sdpa and runs its f16 instance at every step; the last step's
// fp64 check passes on the fp16 cache the earlier steps left.
TEST(VktuneRunLayer, F16DecodeStepsAttendInF16) {
  TempDir dir;
  const VktuneResult r = vktune("run-layer --fixed --dtype f16 --iterations 2 --context 6 "
                                "--decode-steps 3 --model '" + tiny_config(dir) + "'");
  if (r.exit_code != 0 && r.output.find("lacks storageBuffer16BitAccess") != std::string::npos) {
    GTEST_SKIP() << "the device has no 16-bit storage, and run-layer said so:\n" << r.output;
  }
  EXPECT_EQ(r.exit_code, 0) << r.output;
  for (const char* line : {"decode: 3 steps, L = 6 .. 8", "sdpa M=1 L=8 Hq=4 Hkv=2 D=16 f16",
                           "attention route: unchanged: sdpa_fused_f16[", "step 3 L=8", "PASS"}) {
    EXPECT_NE(r.output.find(line), std::string::npos) << line << "\n" << r.output;
  }
}

// A node the database tuned for its very problem shows that time beside its time in the layer,
// and their ratio; a node answered from another problem shows none.
TEST(VktuneRunLayer, TunedNodesShowTheirTimeAlone) {
  TempDir dir;
  const std::string db = quoted(dir.file("t.db"));
  const VktuneResult tuned = vktune("tune --shapes smoke --ops rms_norm --m 1 --plain "
                                    "--variant-budget 0.01 --db " + db);
  ASSERT_EQ(tuned.exit_code, 0) << tuned.output;
  const VktuneResult r = vktune("run-layer --preset smoke --m 1 --iterations 2 --db " + db);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  // The tuned table's line of a node: "name problem variant time adds alone ratio found".
  auto line = [&](const std::string& node) {
    const size_t at = r.output.find("\n  " + node + " ");
    if (at == std::string::npos) return std::string();
    return r.output.substr(at + 1, r.output.find('\n', at + 1) - at - 1);
  };
  // time, adds, alone, ratio, then the route.
  const std::regex timed(R"( [um]s +-?[0-9.]+ [um]s +[0-9.]+ [um]s +-?[0-9.]+x +exact M=1 N=256)");
  EXPECT_TRUE(std::regex_search(line("attn_norm"), timed)) << r.output;
  // No database row for q_proj: the built-in routing, with no time alone.
  EXPECT_TRUE(std::regex_search(line("q_proj"), std::regex(R"( [um]s +- +- +- +builtin)")))
      << r.output;
  EXPECT_NE(r.output.find("(no node timestamps)"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace vktune::testing
