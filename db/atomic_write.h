// Replacing a file so that no reader, and no kill at any moment, ever sees half of it.
#pragma once

#include <string>
#include <string_view>

namespace vktune::db {

// Writes `bytes` to `path`: into an unnamed temporary file in the same directory (O_TMPFILE;
// a hidden named one where the file system lacks it), synced, then renamed over `path`. A kill
// or a failed write leaves the old file as it was. rename(2) needs a name, so the O_TMPFILE is
// linked as .NAME.PID.tmp just before it; a kill in that instant leaves that name beside the
// file, and the next write of `path` removes it (as any .NAME.PID.tmp whose process is gone).
// A symlink at `path` is followed, so the file it names is replaced, not the link. A character
// device or a FIFO at `path` (or behind the link) is never replaced: `bytes` are written into
// it, as to standard output (a FIFO waits for its reader); any other kind of file is refused.
// Throws db::Error naming `path`.
void write_file_atomically(const std::string& path, std::string_view bytes);

// write_file_atomically, or standard output where `path` is "-": where an export or a report
// goes. Throws db::Error naming the path.
void write_output(const std::string& path, std::string_view bytes);

}  // namespace vktune::db
