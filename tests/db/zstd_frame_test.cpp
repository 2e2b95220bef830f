// inflate_zstd: what comes back from whole frames, and the errors (never a crash or an
// allocation the input asked for) for truncated, corrupt, oversized and foreign input.
#include "db/zstd_frame.h"

#include <gtest/gtest.h>
#include <zstd.h>

#include <random>

#include "db/error.h"

namespace vktune::db {
namespace {

std::vector<uint8_t> compress(const std::vector<uint8_t>& data, int level = 3) {
  std::vector<uint8_t> out(ZSTD_compressBound(data.size()));
  ZSTD_CCtx* cctx = ZSTD_createCCtx();
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, level);
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1);  // as the zstd tool writes by default
  const size_t n = ZSTD_compress2(cctx, out.data(), out.size(), data.data(), data.size());
  ZSTD_freeCCtx(cctx);
  EXPECT_FALSE(ZSTD_isError(n));
  out.resize(n);
  return out;
}

std::vector<uint8_t> random_text(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<uint8_t> out(n);
  for (uint8_t& b : out) b = static_cast<uint8_t>('a' + rng() % 16);  // compressible, not trivial
  return out;
}

std::string error_of(std::span<const uint8_t> bytes, size_t limit = kMaxInflatedBytes) {
  try {
    inflate_zstd(bytes, "x.zst", limit);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(ZstdFrame, InflatesWhatWasCompressedAcrossManyOutputChunks) {
  const std::vector<uint8_t> data = random_text(3 * ZSTD_DStreamOutSize() + 17, 1);
  const std::vector<uint8_t> frame = compress(data, 19);
  EXPECT_TRUE(is_zstd_frame(frame));
  EXPECT_EQ(inflate_zstd(frame, "x.zst"), data);
}

TEST(ZstdFrame, ConcatenatedFramesInflateToTheirConcatenation) {
  const std::vector<uint8_t> a = random_text(1000, 2), b = random_text(5000, 3);
  std::vector<uint8_t> frames = compress(a);
  const std::vector<uint8_t> second = compress(b);
  frames.insert(frames.end(), second.begin(), second.end());
  std::vector<uint8_t> both = a;
  both.insert(both.end(), b.begin(), b.end());
  EXPECT_EQ(inflate_zstd(frames, "x.zst"), both);
}

TEST(ZstdFrame, AnEmptyPayloadInflatesToNothing) {
  EXPECT_TRUE(inflate_zstd(compress({}), "x.zst").empty());
}

TEST(ZstdFrame, RefusesInputWithoutTheMagic) {
  const std::vector<uint8_t> text = {'{', '}'};
  EXPECT_FALSE(is_zstd_frame(text));
  EXPECT_NE(error_of(text).find("x.zst: not a zstd frame"), std::string::npos);
  EXPECT_NE(error_of({}).find("not a zstd frame"), std::string::npos);
}

TEST(ZstdFrame, EveryTruncationIsAnError) {
  const std::vector<uint8_t> frame = compress(random_text(20000, 4));
  for (size_t keep = 4; keep < frame.size(); keep += 1 + keep / 8) {
    const std::string error = error_of(std::span(frame).first(keep));
    EXPECT_NE(error.find("x.zst: "), std::string::npos) << "kept " << keep << " bytes";
  }
  EXPECT_NE(error_of(std::span(frame).first(frame.size() - 1)).find("truncated"),
            std::string::npos);
}

TEST(ZstdFrame, EveryBitFlipIsAnErrorOrTheSameBytes) {
  // The frame checksum (xxhash of the content) catches flips the block decoder accepts; a
  // flip in a header's unused bits may leave the content as it was, which is not damage.
  const std::vector<uint8_t> data = random_text(4000, 5);
  const std::vector<uint8_t> frame = compress(data);
  for (size_t byte = 0; byte < frame.size(); ++byte) {
    for (int bit : {0, 3, 7}) {
      std::vector<uint8_t> flipped = frame;
      flipped[byte] ^= static_cast<uint8_t>(1u << bit);
      try {
        EXPECT_EQ(inflate_zstd(flipped, "x.zst"), data) << "byte " << byte << " bit " << bit;
      } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("x.zst: "), std::string::npos);
      }
    }
  }
}

TEST(ZstdFrame, ABombStopsAtTheLimit) {
  // 64 MiB of zeros compress to a few KiB; with a 1 MiB limit inflating stops there.
  const std::vector<uint8_t> zeros(64u << 20, 0);
  const std::vector<uint8_t> frame = compress(zeros, 1);
  ASSERT_LT(frame.size(), 64u << 10);
  EXPECT_NE(error_of(frame, 1u << 20).find("decompresses past the 1 MiB limit"), std::string::npos);
  EXPECT_EQ(inflate_zstd(frame, "x.zst", 64u << 20).size(), zeros.size());  // exactly at the limit
}

TEST(ZstdFrame, BytesAfterTheLastFrameAreAnError) {
  std::vector<uint8_t> frame = compress(random_text(100, 6));
  frame.push_back('x');
  frame.push_back('y');
  EXPECT_NE(error_of(frame).find("x.zst: "), std::string::npos);
}

}  // namespace
}  // namespace vktune::db
