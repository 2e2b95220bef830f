// inflate_zstd: libzstd's streaming decoder, one output chunk at a time, under a ceiling.
#include "db/zstd_frame.h"

#include <zstd.h>

#include <algorithm>
#include <array>
#include <memory>

#include "db/error.h"

namespace vktune::db {
namespace {

constexpr std::array<uint8_t, 4> kMagic = {0x28, 0xB5, 0x2F, 0xFD};

struct DStreamDeleter {
  void operator()(ZSTD_DStream* s) const noexcept { ZSTD_freeDStream(s); }
};

std::string mib(size_t bytes) { return std::to_string(bytes >> 20) + " MiB"; }

}  // namespace

bool is_zstd_frame(std::span<const uint8_t> bytes) noexcept {
  return bytes.size() >= kMagic.size() && std::equal(kMagic.begin(), kMagic.end(), bytes.begin());
}

std::vector<uint8_t> inflate_zstd(std::span<const uint8_t> frame, const std::string& label,
                                  size_t limit) {
  if (!is_zstd_frame(frame)) throw Error(label + ": not a zstd frame (no zstd magic number)");
  const std::unique_ptr<ZSTD_DStream, DStreamDeleter> stream(ZSTD_createDStream());
  if (!stream) throw Error(label + ": out of memory for a zstd decoder");
  // Frames written with --long=27 need a 128 MiB window; the decoder refuses larger ones
  // (ZSTD_WINDOWLOG_LIMIT_DEFAULT is 27), which also bounds its own memory.
  ZSTD_initDStream(stream.get());

  const auto past_limit = [&] {
    return Error(label + ": decompresses past the " + mib(limit) +
                 " limit; not a database vktune wrote");
  };
  std::vector<uint8_t> out;
  const size_t chunk = ZSTD_DStreamOutSize();
  ZSTD_inBuffer in{frame.data(), frame.size(), 0};
  // ZSTD_decompressStream's hint: 0 once a frame is whole and flushed. Bytes after a frame
  // are read as the next frame's header, so anything but a frame there is an error.
  size_t pending = 1;
  // Room for one byte past the limit, so that content of exactly `limit` bytes passes.
  while (in.pos < in.size || pending != 0) {
    if (out.size() > limit) throw past_limit();
    const size_t start = out.size();
    out.resize(start + std::min(chunk, limit + 1 - start));
    ZSTD_outBuffer dst{out.data() + start, out.size() - start, 0};
    const size_t consumed = in.pos;
    pending = ZSTD_decompressStream(stream.get(), &dst, &in);
    out.resize(start + dst.pos);
    if (ZSTD_isError(pending)) {
      throw Error(label + ": corrupt zstd data (" + ZSTD_getErrorName(pending) + ")");
    }
    if (pending != 0 && in.pos == in.size && in.pos == consumed && dst.pos == 0) {
      throw Error(label + ": truncated zstd data (the input ends inside a frame)");
    }
  }
  if (out.size() > limit) throw past_limit();
  return out;
}

}  // namespace vktune::db
