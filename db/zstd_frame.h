// zstd-compressed database files (db/tuned ships them so): telling a frame by its magic and
// inflating it with a ceiling, so that no input, truncated, corrupt or crafted, costs more than
// the ceiling in memory or ends other than in an Error naming it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace vktune::db {

// The ceiling on what one compressed database inflates to: 4x the largest export this project
// has written (an H100 sweep of ~95 MB as JSON), well under what the machines that read it hold.
inline constexpr size_t kMaxInflatedBytes = size_t{1} << 30;

// Whether `bytes` start with a zstd frame's magic number (28 B5 2F FD).
bool is_zstd_frame(std::span<const uint8_t> bytes) noexcept;

// The content of the zstd frame(s) in `frame`, streamed into a buffer that grows as output
// arrives: the size a frame's header declares is never trusted for an allocation. Throws Error
// "<label>: ..." when the input is not zstd, is truncated or corrupt (zstd's frame checksum and
// block checks), holds bytes after its last frame that are not a frame, or would inflate past
// `limit` bytes ("decompresses past the 1024 MiB limit"); nothing is returned then.
std::vector<uint8_t> inflate_zstd(std::span<const uint8_t> frame, const std::string& label,
                                  size_t limit = kMaxInflatedBytes);

}  // namespace vktune::db
