// Presets and shapes files: the problems a run covers, and clear errors for bad input.
#include "tuner/shape_sets.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "kernels/models/presets.h"

namespace vktune::tuner {
namespace {

using kernels::Op;
using models::LayerShape;
using models::preset_layer;

size_t count(const std::vector<kernels::Problem>& problems, Op op) {
  return std::count_if(problems.begin(), problems.end(),
                       [op](const kernels::Problem& p) { return p.op == op; });
}

TEST(ShapeSetsTest, Llama8bHasItsLinearShapesAndNorm) {
  ShapeOptions options;
  options.m = {1, 128};
  options.group_sizes = {32, 128};
  const auto problems = load_shapes("llama3-8b", options);
  // q/o, k/v, gate/up, down, lm_head = 5 (N, K) pairs x 2 M x 2 gs, plus 1 norm width x 2 M.
  EXPECT_EQ(count(problems, Op("q4gsw")), 20u);
  EXPECT_EQ(count(problems, Op("rms_norm")), 2u);
  const kernels::Problem down{Op("q4gsw"), 128, 4096, 14336, 128, false};
  EXPECT_NE(std::find(problems.begin(), problems.end(), down), problems.end());
  const kernels::Problem lm_head{Op("q4gsw"), 1, 128256, 4096, 32, false};
  EXPECT_NE(std::find(problems.begin(), problems.end(), lm_head), problems.end());
}

TEST(ShapeSetsTest, OpsFilterAndPresetDefaults) {
  ShapeOptions options;
  options.ops = {Op("rms_norm")};
  const auto problems = load_shapes("llama3.2-1b", options);
  ASSERT_EQ(problems.size(), 2u);  // default M = {1, 128}
  EXPECT_EQ(problems[0].n, 2048u);
  EXPECT_EQ(problems[0].k, 2048u);
}

kernels::Problem attention(uint32_t m, uint32_t length, uint32_t heads, uint32_t kv_heads,
                           uint32_t head_dim) {
  kernels::Problem p{Op("sdpa"), m, length, head_dim, 0, false};
  p.heads = heads;
  p.kv_heads = kv_heads;
  return p;
}

// Asked for, a preset's attention comes at every context length that holds the M tokens.
TEST(ShapeSetsTest, PresetAttentionPerContextLength) {
  ShapeOptions options;
  options.ops = {Op("sdpa")};
  options.m = {1, 512};
  const auto problems = load_shapes("llama3-8b", options);
  // M = 1 at 128, 512, 2048, 8192; M = 512 at all but 128.
  ASSERT_EQ(problems.size(), 7u);
  EXPECT_EQ(problems[0], attention(1, 128, 32, 8, 128));
  EXPECT_EQ(problems[6], attention(512, 8192, 32, 8, 128));
  options.contexts = {1000};
  EXPECT_EQ(load_shapes("llama3.2-1b", options),
            (std::vector<kernels::Problem>{attention(1, 1000, 32, 8, 64),
                                           attention(512, 1000, 32, 8, 64)}));
  EXPECT_EQ(count(load_shapes("llama3-8b", {}), Op("sdpa")), 0u);  // not among the default ops
  // In both dtypes: each problem once per dtype, the f16 one after its f32 twin.
  options.dtypes = {kernels::DType::f32, kernels::DType::f16};
  const auto both = load_shapes("llama3.2-1b", options);
  ASSERT_EQ(both.size(), 4u);
  kernels::Problem half = attention(1, 1000, 32, 8, 64);
  half.dtype = kernels::DType::f16;
  EXPECT_EQ(both[0], attention(1, 1000, 32, 8, 64));
  EXPECT_EQ(both[1], half);
}

TEST(ShapeSetsTest, ShapesFileAttention) {
  const auto path = std::filesystem::temp_directory_path() / "vktune_shapes_sdpa.json";
  std::ofstream(path) << R"({"problems": [
      {"op": "sdpa", "heads": 8, "kv_heads": 2, "head_dim": 80, "context": [300, 77], "m": [1]},
      {"op": "sdpa", "heads": 8, "kv_heads": 3, "head_dim": 80}]})";
  ShapeOptions options;
  options.ops = {Op("sdpa")};
  try {
    load_shapes(path.string(), options);
    ADD_FAILURE() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("heads=8 is not a multiple of kv_heads=3"),
              std::string::npos)
        << e.what();
  }
  std::ofstream(path) << R"({"problems": [
      {"op": "sdpa", "heads": 8, "kv_heads": 2, "head_dim": 80, "context": [300, 77], "m": [1]}]})";
  const auto problems = load_shapes(path.string(), options);
  std::filesystem::remove(path);
  EXPECT_EQ(problems, (std::vector<kernels::Problem>{attention(1, 300, 8, 2, 80),
                                                     attention(1, 77, 8, 2, 80)}));
}

// An sdpa entry is never dropped unseen: at the default --ops it is an error naming the entry
// and the flag; with the ops chosen, the entries of the others are left out as asked.
TEST(ShapeSetsTest, ShapesFileEntriesOfOpsLeftOut) {
  const auto path = std::filesystem::temp_directory_path() / "vktune_shapes_left_out.json";
  std::ofstream(path) << R"({"problems": [
      {"op": "q4gsw", "n": 64, "k": 64, "gs": 32},
      {"op": "sdpa", "heads": 8, "kv_heads": 2, "head_dim": 64}]})";
  try {
    load_shapes(path.string(), {});
    ADD_FAILURE() << "the sdpa entry was dropped";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(
                  "problems[1]: op sdpa, which the default --ops (q4gsw,rms_norm) leaves out; "
                  "add --ops q4gsw,rms_norm,sdpa to tune it"),
              std::string::npos)
        << e.what();
  }
  ShapeOptions chosen;
  chosen.ops = {Op("q4gsw")};
  chosen.ops_chosen = true;
  const auto problems = load_shapes(path.string(), chosen);
  std::filesystem::remove(path);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].op, Op("q4gsw"));
}

kernels::Problem rope(uint32_t m, uint32_t l, uint32_t heads, uint32_t d) {
  kernels::Problem p{Op("rope"), m, l, d, 0, false};
  p.heads = heads;
  return p;
}

// Asked for, a preset's RoPE comes for the query heads, then the key heads, at every context
// length that holds the tokens; a shapes file names one tensor's heads (no kv_heads).
TEST(ShapeSetsTest, RopeFromPresetsAndFiles) {
  ShapeOptions options;
  options.ops = {Op("rope")};
  options.contexts = {3, 1000};
  options.m = {1, 5};
  EXPECT_EQ(load_shapes("llama3-8b", options),
            (std::vector<kernels::Problem>{rope(1, 3, 32, 128), rope(1, 1000, 32, 128),
                                           rope(1, 3, 8, 128), rope(1, 1000, 8, 128),
                                           rope(5, 1000, 32, 128), rope(5, 1000, 8, 128)}));
  EXPECT_EQ(count(load_shapes("llama3-8b", {}), Op("rope")), 0u);  // not among the default ops
  const auto path = std::filesystem::temp_directory_path() / "vktune_shapes_rope.json";
  std::ofstream(path) << R"({"problems": [
      {"op": "rope", "heads": 6, "head_dim": 80, "context": [300], "m": [2]}]})";
  ShapeOptions from_file;
  from_file.ops = {Op("rope")};
  EXPECT_EQ(load_shapes(path.string(), from_file), std::vector<kernels::Problem>{rope(2, 300, 6, 80)});
  std::ofstream(path) << R"({"problems": [
      {"op": "rope", "heads": 6, "kv_heads": 2, "head_dim": 80}]})";
  try {
    load_shapes(path.string(), from_file);
    ADD_FAILURE() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("unknown key \"kv_heads\""), std::string::npos) << e.what();
  }
  std::filesystem::remove(path);
}

TEST(ShapeSetsTest, ShapesFileWithOverrides) {
  const auto path = std::filesystem::temp_directory_path() / "vktune_shapes_test.json";
  std::ofstream(path) << R"({"m": [2], "gs": [64], "problems": [
      {"op": "q4gsw", "n": 100, "k": 128, "bias": true},
      {"op": "q4gsw", "n": 64, "k": 256, "m": [1, 3], "gs": [32, 128]},
      {"op": "rms_norm", "n": 96}]})";
  const auto problems = load_shapes(path.string(), {});
  std::filesystem::remove(path);
  ASSERT_EQ(problems.size(), 6u);
  EXPECT_EQ(problems[0], (kernels::Problem{Op("q4gsw"), 2, 100, 128, 64, true}));
  EXPECT_EQ(problems[1], (kernels::Problem{Op("q4gsw"), 1, 64, 256, 32, false}));
  EXPECT_EQ(problems[5], (kernels::Problem{Op("rms_norm"), 2, 96, 96, 0, false}));
}

TEST(ShapeSetsTest, BadInputIsAClearError) {
  const auto path = std::filesystem::temp_directory_path() / "vktune_shapes_bad.json";
  std::ofstream(path) << R"({"problems": [{"op": "q4gsw", "n": 64, "k": 96, "gs": 64}]})";
  try {
    load_shapes(path.string(), {});
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("K=96"), std::string::npos) << e.what();
  }
  std::ofstream(path) << R"({"problems": [{"op": "q4gsw", "n": 1e999}]})";
  EXPECT_THROW(load_shapes(path.string(), {}), std::invalid_argument);
  std::ofstream(path) << R"({"problems": [{"op": "conv", "n": 64}]})";
  EXPECT_THROW(load_shapes(path.string(), {}), std::invalid_argument);
  std::filesystem::remove(path);
  try {
    load_shapes("llama-70b", {});
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("neither a preset"), std::string::npos) << e.what();
  }
}

TEST(ShapeSetsTest, PresetLayersMatchTheirLinearShapes) {
  const LayerShape l = preset_layer("llama3-8b");
  EXPECT_EQ(l.hidden, 4096u);
  EXPECT_EQ(l.kv_width(), 1024u);
  EXPECT_EQ(l.q_width(), 4096u);
  EXPECT_EQ(l.layers, 32u);
  EXPECT_EQ(l.rope_theta, 500000);
  EXPECT_EQ(l.ffn, 14336u);
  EXPECT_EQ(l.group_size, 32u);
  // Every projection of the layer is among the preset's tuned shapes.
  const auto problems = load_shapes("llama3.2-1b", {});
  const LayerShape s = preset_layer("llama3.2-1b");
  for (const auto& [n, k] : {std::pair{s.hidden, s.hidden}, {s.kv_width(), s.hidden},
                            {s.ffn, s.hidden}, {s.hidden, s.ffn}}) {
    const kernels::Problem p{Op("q4gsw"), 1, n, k, s.group_size, false};
    EXPECT_NE(std::find(problems.begin(), problems.end(), p), problems.end()) << describe(p);
  }
  EXPECT_EQ(preset_layer("smoke").hidden, 256u);
  EXPECT_THROW(preset_layer("llama-70b"), std::invalid_argument);
}

TEST(ShapeSetsTest, ParsesLists) {
  EXPECT_EQ(parse_list("1,4,16"), (std::vector<uint32_t>{1, 4, 16}));
  EXPECT_THROW(parse_list("1,,4"), std::invalid_argument);
  EXPECT_THROW(parse_list("0"), std::invalid_argument);
  EXPECT_THROW(parse_list("x"), std::invalid_argument);
}

}  // namespace
}  // namespace vktune::tuner
