// config.json -> shapes: the shipped configs of real models (tests/tuner/models/), the presets
// they define, and clear errors for incomplete or hostile configs.
#include "kernels/models/model_config.h"

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>

#include "tuner/shape_sets.h"

namespace vktune::tuner {
namespace {

using namespace models;  // the readers under test; load_shapes and load_model are the tuner's

std::string fixture(const std::string& name) { return std::string(VKTUNE_TEST_MODELS) + "/" + name; }

ModelConfig read_fixture(const std::string& name) {
  std::ifstream in(fixture(name));
  return parse_model_config(std::string(std::istreambuf_iterator<char>(in), {}), name);
}

// The error parse_model_config throws for `json`, or "" when it parses.
std::string error_of(const std::string& json) {
  try {
    parse_model_config(json, "config.json");
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

TEST(ModelConfigTest, LlamaConfigsGiveExactlyTheirPresetsProblems) {
  ShapeOptions wide;
  wide.m = {1, 7, 128};
  wide.group_sizes = {32, 128};
  for (const auto& [file, preset] : {std::pair{"llama-3-8b.json", "llama3-8b"},
                                     std::pair{"llama-3.2-1b.json", "llama3.2-1b"}}) {
    for (const ShapeOptions& options : {ShapeOptions{}, wide}) {
      const auto from_config = load_model(fixture(file), options);
      EXPECT_EQ(from_config, load_shapes(preset, options)) << file;
      // 5 distinct linears x |M| x |gs| plus one norm width x |M|.
      const size_t ms = options.m.empty() ? 2 : options.m.size();
      const size_t gss = options.group_sizes.empty() ? 1 : options.group_sizes.size();
      EXPECT_EQ(from_config.size(), 5 * ms * gss + ms) << file;
    }
  }
  const ModelConfig one_b = read_fixture("llama-3.2-1b.json");
  EXPECT_TRUE(one_b.tie_word_embeddings);
  EXPECT_EQ(one_b.head_dim, 64u);
  EXPECT_FALSE(read_fixture("llama-3-8b.json").tie_word_embeddings);
  EXPECT_EQ(read_fixture("llama-3-8b.json").head_dim, 128u);  // hidden / heads
}

TEST(ModelConfigTest, OtherModelsShapes) {
  // Qwen2.5 7B: 28 heads x 128, 4 kv heads; q/k/v carry a bias, o does not.
  EXPECT_EQ(model_shapes(read_fixture("qwen2.5-7b.json")).linears,
            (std::vector<Linear>{{3584, 3584, true}, {512, 3584, true}, {3584, 3584, false},
                                 {18944, 3584, false}, {3584, 18944, false}, {152064, 3584, false}}));
  // Qwen3 0.6B: head_dim 128 x 16 heads is wider than hidden 1024, so q and o differ.
  const ModelShapes qwen3 = model_shapes(read_fixture("qwen3-0.6b.json"));
  EXPECT_EQ(qwen3.linears,
            (std::vector<Linear>{{2048, 1024}, {1024, 1024}, {1024, 2048}, {3072, 1024},
                                 {1024, 3072}, {151936, 1024}}));
  EXPECT_EQ(qwen3.norm_widths, (std::vector<uint32_t>{1024}));
  // Mistral 7B: Llama 3 8B's layer, a 32000-token vocabulary.
  EXPECT_EQ(model_shapes(read_fixture("mistral-7b-v0.1.json")).linears.back(), (Linear{32000, 4096}));
}

TEST(ModelConfigTest, DefaultsAndNestedTextConfig) {
  const ModelConfig c = parse_model_config(
      R"({"text_config": {"hidden_size": 64, "intermediate_size": 96, "num_attention_heads": 4,
          "vocab_size": 100, "head_dim": null, "mlp_bias": true}})",
      "config.json");
  EXPECT_EQ(c.num_key_value_heads, 4u);
  EXPECT_EQ(c.head_dim, 16u);
  EXPECT_TRUE(c.mlp_bias);
  EXPECT_FALSE(c.qkv_bias);
}

TEST(ModelConfigTest, IncompleteOrBadConfigsNameTheFileAndTheField) {
  const std::string base = R"("intermediate_size": 96, "num_attention_heads": 4, "vocab_size": 100)";
  EXPECT_EQ(error_of("{" + base + "}"),
            "config.json: missing \"hidden_size\" (a decoder model's config.json states it)");
  EXPECT_NE(error_of(R"({"hidden_size": 64, "num_attention_heads": 4})").find("missing \"intermediate_size\""),
            std::string::npos);
  EXPECT_NE(error_of(R"({"hidden_size": 64, )").find("config.json: not a JSON config"), std::string::npos);
  // A number past double's range is nlohmann's out_of_range, not a parse_error (found by fuzzing).
  EXPECT_NE(error_of(R"({"hidden_size": 8E888888})").find("config.json: not a JSON config"), std::string::npos);
  EXPECT_NE(error_of("[1, 2]").find("expected a JSON object"), std::string::npos);
  EXPECT_NE(error_of(R"({"hidden_size": -64, )" + base + "}").find("\"hidden_size\" must be a positive integer"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"hidden_size": 1e9, )" + base + "}").find("must be a positive integer"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"hidden_size": 4294967296, )" + base + "}").find("hidden_size=4294967296 is out of range"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"hidden_size": 66, )" + base + "}").find("missing \"head_dim\" and hidden_size=66"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"hidden_size": 64, "num_key_value_heads": 3, )" + base + "}")
                .find("num_key_value_heads=3 does not divide num_attention_heads=4"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"hidden_size": 64, "head_dim": 16777216, )" + base + "}")
                .find("num_attention_heads x head_dim=67108864 is out of range"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"hidden_size": 64, "tie_word_embeddings": "yes", )" + base + "}")
                .find("\"tie_word_embeddings\" must be true or false"),
            std::string::npos);
  EXPECT_EQ(error_of(R"({"hidden_size": 64, )" + base + "}"), "");
}

TEST(ModelConfigTest, InvalidProblemsNameTheModelFile) {
  ShapeOptions options;
  options.group_sizes = {96};  // 4096 % 96 != 0
  try {
    load_model(fixture("llama-3-8b.json"), options);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("llama-3-8b.json: q4gsw"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace vktune::tuner
