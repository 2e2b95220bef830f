// GGUF header -> shapes, from tensors and from metadata, agreeing with the model's config.json;
// and `--model` files told apart by their magic.
#include "kernels/models/gguf_model.h"

#include <gtest/gtest.h>

#include <fstream>

#include "tests/temp_dir.h"
#include "tests/tuner/gguf_writer.h"
#include "kernels/models/model_file.h"

namespace vktune::models {
namespace {

using namespace vktune::testing;

std::string fixture(const std::string& name) { return std::string(VKTUNE_TEST_MODELS) + "/" + name; }

// The tensors of a Llama-style model as llama.cpp names them: `blocks` blocks of hidden h,
// q width q, kv width kv, FFN f; the lm_head as output.weight unless tied.
GgufWriter llama_tensors(uint64_t blocks, uint64_t h, uint64_t q, uint64_t kv, uint64_t f,
                         uint64_t vocab, bool tied, bool qkv_bias = false) {
  GgufWriter w;
  w.text("general.architecture", "llama").tensor("token_embd.weight", {h, vocab});
  for (uint64_t b = 0; b < blocks; ++b) {
    const std::string p = "blk." + std::to_string(b) + ".";
    w.tensor(p + "attn_norm.weight", {h});
    w.linear(p + "attn_q", q, h).linear(p + "attn_k", kv, h).linear(p + "attn_v", kv, h);
    if (qkv_bias) w.tensor(p + "attn_q.bias", {q}).tensor(p + "attn_k.bias", {kv}).tensor(p + "attn_v.bias", {kv});
    w.linear(p + "attn_output", h, q);
    w.linear(p + "ffn_gate", f, h).linear(p + "ffn_up", f, h).linear(p + "ffn_down", h, f);
  }
  if (!tied) w.linear("output", vocab, h);
  return w;
}

ModelShapes config_shapes(const std::string& file) { return load_model_file(fixture(file)); }

std::string error_of(const GgufWriter& w) {
  try {
    gguf_model_shapes(read_gguf_bytes(w.bytes()), "m.gguf");
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

TEST(GgufModelTest, TensorsGiveTheConfigsShapes) {
  // Llama 3.2 1B ties its lm_head to token_embd.
  const ModelShapes tied = gguf_model_shapes(
      read_gguf_bytes(llama_tensors(2, 2048, 2048, 512, 8192, 128256, true).bytes()), "m.gguf");
  EXPECT_EQ(tied.linears, config_shapes("llama-3.2-1b.json").linears);
  EXPECT_EQ(tied.norm_widths, (std::vector<uint32_t>{2048}));
  const ModelShapes qwen = gguf_model_shapes(
      read_gguf_bytes(llama_tensors(1, 3584, 3584, 512, 18944, 152064, false, true).bytes()), "m.gguf");
  EXPECT_EQ(qwen.linears, config_shapes("qwen2.5-7b.json").linears);
  const ModelShapes qwen3 = gguf_model_shapes(
      read_gguf_bytes(llama_tensors(3, 1024, 2048, 1024, 3072, 151936, true).bytes()), "m.gguf");
  EXPECT_EQ(qwen3.linears, config_shapes("qwen3-0.6b.json").linears);
}

TEST(GgufModelTest, MetadataGivesTheConfigsShapesWhenNoTensorsAreListed) {
  GgufWriter w;
  w.text("general.architecture", "llama")
      .u32("llama.embedding_length", 4096)
      .u32("llama.feed_forward_length", 14336)
      .u32("llama.attention.head_count", 32)
      .u32("llama.attention.head_count_kv", 8)
      .strings("tokenizer.ggml.tokens", std::vector<std::string>(32000, "t"));
  EXPECT_EQ(gguf_model_shapes(read_gguf_bytes(w.bytes()), "m.gguf").linears,
            config_shapes("mistral-7b-v0.1.json").linears);
  const ModelConfig c = gguf_metadata_config(read_gguf_bytes(w.u32("llama.vocab_size", 128256).bytes()), "m.gguf");
  EXPECT_EQ(c.vocab_size, 128256u);
  EXPECT_EQ(c.head_dim, 128u);
}

TEST(GgufModelTest, IncompleteModelsNameWhatIsMissing) {
  EXPECT_EQ(error_of(GgufWriter().text("general.architecture", "llama")),
            "m.gguf: missing integer metadata llama.embedding_length");
  EXPECT_NE(error_of(GgufWriter()).find("no string general.architecture"), std::string::npos);
  EXPECT_NE(error_of(GgufWriter()
                         .text("general.architecture", "qwen2")
                         .u32("qwen2.embedding_length", 64)
                         .u32("qwen2.feed_forward_length", 128)
                         .u32("qwen2.attention.head_count", 4))
                .find("missing qwen2.vocab_size and tokenizer.ggml.tokens"),
            std::string::npos);
  EXPECT_NE(error_of(GgufWriter().tensor("token_embd.weight", {64, 100})).find("no tensor blk.<i>.*"),
            std::string::npos);
  EXPECT_NE(error_of(GgufWriter().linear("blk.0.attn_q", 64, 64)).find("tensor blk.0.attn_k.weight is missing"),
            std::string::npos);
  GgufWriter complete = llama_tensors(1, 64, 64, 16, 128, 100, true);
  EXPECT_EQ(error_of(complete), "");
  GgufWriter no_head;
  no_head.linear("blk.0.attn_q", 64, 64).linear("blk.0.attn_k", 16, 64).linear("blk.0.attn_v", 16, 64);
  no_head.linear("blk.0.attn_output", 64, 64).linear("blk.0.ffn_gate", 128, 64);
  no_head.linear("blk.0.ffn_up", 128, 64).linear("blk.0.ffn_down", 64, 128);
  EXPECT_NE(error_of(no_head).find("neither output.weight nor token_embd.weight"), std::string::npos);
  EXPECT_NE(error_of(GgufWriter().tensor("blk.0.attn_q.weight", {64})).find("has 1 dimensions"),
            std::string::npos);
  EXPECT_NE(error_of(GgufWriter().tensor("blk.0.attn_q.weight", {64, uint64_t{1} << 32}))
                .find("blk.0.attn_q.weight rows=4294967296 is out of range"),
            std::string::npos);
}

TEST(GgufModelTest, ModelFilesAreToldApartByTheirMagic) {
  TempDir dir;
  const std::string gguf = dir.file("model.gguf");
  std::ofstream(gguf, std::ios::binary) << llama_tensors(1, 2048, 2048, 512, 8192, 128256, true).bytes();
  EXPECT_EQ(load_model_file(gguf).linears, config_shapes("llama-3.2-1b.json").linears);
  const std::string truncated = dir.file("truncated.gguf");
  std::ofstream(truncated, std::ios::binary) << GgufWriter().text("general.architecture", "llama").bytes().substr(0, 40);
  try {
    load_model_file(truncated);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(truncated + ": truncated or corrupt: a metadata key 20 needs more than the 8 bytes left"), std::string::npos) << e.what();
  }
  EXPECT_THROW(load_model_file(dir.file("absent.json")), std::invalid_argument);
}

}  // namespace
}  // namespace vktune::models
