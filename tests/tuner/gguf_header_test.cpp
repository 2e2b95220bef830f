// The GGUF header reader: what it reads from a well-formed header, and a clear error (never a
// crash or a huge allocation) for truncated, foreign and hostile ones.
#include "kernels/models/gguf_header.h"

#include <gtest/gtest.h>


#include "tests/tuner/gguf_writer.h"

namespace vktune::models {
namespace {

using namespace vktune::testing;

// The error read_gguf_bytes() throws for `bytes`, or "" when it reads them.
std::string error_of(const std::string& bytes) {
  try {
    read_gguf_bytes(bytes);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

// The header of a 3-byte file: magic, version 3, no tensors, one metadata entry of `type`
// whose value is `value`.
std::string one_entry(uint32_t type, const std::string& value) {
  std::string out = "GGUF";
  put<uint32_t>(out, 3);
  put<uint64_t>(out, 0);
  put<uint64_t>(out, 1);
  put_string(out, "k");
  put(out, type);
  return out + value;
}

TEST(GgufHeaderTest, ReadsMetadataAndTensorShapes) {
  const std::string bytes = GgufWriter()
                                .text("general.architecture", "llama")
                                .u32("llama.embedding_length", 2048)
                                .strings("tokenizer.ggml.tokens", {"a", "bc", ""})
                                .floats("tokenizer.ggml.scores", {0.5f, 1.5f})
                                .linear("blk.0.attn_k", 512, 2048)
                                .tensor("output_norm.weight", {2048})
                                .bytes(2);
  const GgufHeader h = read_gguf_bytes(bytes);
  EXPECT_EQ(h.version, 2u);
  EXPECT_EQ(h.text("general.architecture"), "llama");
  EXPECT_EQ(h.integer("llama.embedding_length"), 2048u);
  EXPECT_EQ(h.integer("general.architecture"), std::nullopt);
  EXPECT_EQ(h.text("llama.embedding_length"), "");
  EXPECT_EQ(std::get<GgufArray>(h.metadata.at("tokenizer.ggml.tokens")).length, 3u);
  EXPECT_EQ(std::get<GgufArray>(h.metadata.at("tokenizer.ggml.scores")).length, 2u);
  ASSERT_EQ(h.tensors.size(), 2u);
  ASSERT_NE(h.tensor("blk.0.attn_k.weight"), nullptr);
  EXPECT_EQ(h.tensor("blk.0.attn_k.weight")->dims, (std::vector<uint64_t>{2048, 512}));
  EXPECT_EQ(h.tensor("output_norm.weight")->dims, (std::vector<uint64_t>{2048}));
  EXPECT_EQ(h.tensor("output.weight"), nullptr);
}

TEST(GgufHeaderTest, EveryTruncationIsAnErrorNamingTheFile) {
  const std::string bytes = GgufWriter()
                                .text("general.architecture", "llama")
                                .strings("tokenizer.ggml.tokens", {"x", "yz"})
                                .linear("blk.0.attn_q", 64, 64)
                                .bytes();
  ASSERT_EQ(error_of(bytes), "");
  for (size_t n = 0; n < bytes.size(); ++n) {
    const std::string error = error_of(bytes.substr(0, n));
    EXPECT_EQ(error.rfind("m.gguf: ", 0), 0u) << n << ": " << error;
    // A count that the bytes left cannot hold is refused before its items are read.
    EXPECT_NE(error.find("truncated"), std::string::npos) << n << ": " << error;
  }
}

TEST(GgufHeaderTest, RefusesForeignFilesAndVersions) {
  EXPECT_NE(error_of("{\"hidden_size\": 1}").find("not a GGUF file"), std::string::npos);
  EXPECT_NE(error_of(GgufWriter().bytes(1)).find("GGUF version 1 is not supported"), std::string::npos);
  EXPECT_NE(error_of(GgufWriter().bytes(4)).find("GGUF version 4"), std::string::npos);
  EXPECT_EQ(error_of(GgufWriter().bytes(3)), "");
}

TEST(GgufHeaderTest, HostileCountsFailBeforeAnyLoop) {
  std::string huge = "GGUF";
  put<uint32_t>(huge, 3);
  put<uint64_t>(huge, uint64_t{1} << 40);  // tensors
  put<uint64_t>(huge, 0);
  EXPECT_NE(error_of(huge).find("tensor count 1099511627776 exceeds"), std::string::npos) << error_of(huge);
  std::string unfit = "GGUF";
  put<uint32_t>(unfit, 3);
  put<uint64_t>(unfit, 0);
  put<uint64_t>(unfit, 1000);  // metadata entries in a file with no bytes left
  EXPECT_NE(error_of(unfit).find("metadata count 1000 needs more than the 0 bytes left"), std::string::npos);

  std::string long_string;
  put<uint64_t>(long_string, uint64_t{1} << 30);
  EXPECT_NE(error_of(one_entry(kString, long_string)).find("exceeds"), std::string::npos);
  std::string long_array;
  put<uint32_t>(long_array, kU32);
  put<uint64_t>(long_array, UINT64_MAX / 2);
  EXPECT_NE(error_of(one_entry(kArray, long_array)).find("array length"), std::string::npos);
}

TEST(GgufHeaderTest, MalformedEntriesAndTensorsAreNamed) {
  EXPECT_NE(error_of(one_entry(13, "")).find("unknown metadata value type 13"), std::string::npos);
  EXPECT_NE(error_of(one_entry(kBool, "\x02")).find("neither 0 nor 1"), std::string::npos);
  EXPECT_EQ(error_of(one_entry(kBool, "\x01")), "");
  std::string nested;  // an array of arrays of arrays
  for (int depth = 0; depth < 3; ++depth) {
    put<uint32_t>(nested, kArray);
    put<uint64_t>(nested, 1);
  }
  EXPECT_NE(error_of(one_entry(kArray, nested)).find("nested deeper"), std::string::npos);
  EXPECT_NE(error_of(GgufWriter().u32("a", 1).u32("a", 2).bytes()).find("metadata key repeats"),
            std::string::npos);
  EXPECT_NE(error_of(GgufWriter().tensor("t", {4}).tensor("t", {8}).bytes()).find("tensor name \"t\" repeats"),
            std::string::npos);
  EXPECT_NE(error_of(GgufWriter().tensor("t", {4, 0}).bytes()).find("tensor \"t\" has a zero dimension"),
            std::string::npos);
  EXPECT_NE(error_of(GgufWriter().tensor("t", {1, 2, 3, 4, 5}).bytes()).find("has 5 dimensions"),
            std::string::npos);
}

}  // namespace
}  // namespace vktune::models
