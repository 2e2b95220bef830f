// Files written whole or not at all: a temporary file beside the target, renamed over it, so a
// concurrent reader or a kill sees the old file or the new one, never half of one. Unlike
// db/atomic_write.h (exports, reports, outputs a user asked for), nothing is fsynced: these are
// cache entries, one per SPIR-V module, that a crash may lose and the next run compiles again.
#pragma once

#include <filesystem>
#include <functional>
#include <ostream>

namespace vktune {

// Creates `file`'s folder where missing, calls `write` on a temporary file in it and renames
// that over `file`. Returns false, leaving `file` as it was and no temporary behind, when the
// folder, the write or the rename fails. Thread- and process-safe: each writer has its own
// temporary name, and the last rename wins.
bool write_atomically(const std::filesystem::path& file,
                      const std::function<void(std::ostream&)>& write);

}  // namespace vktune
