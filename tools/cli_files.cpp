// The files a command reads and writes: inputs are files, not streams; outputs never go over
// an input.
#include <sys/stat.h>

#include <filesystem>
#include <string>
#include <system_error>

#include "db/database_file.h"
#include "tools/cli.h"

namespace vktune::cli {

void refuse_to_overwrite(std::initializer_list<std::string_view> inputs, const std::string& output) {
  if (output.empty() || output == "-" || output == ":memory:") return;
  struct stat out {};
  const bool exists = ::stat(output.c_str(), &out) == 0;
  std::error_code ec;
  for (const std::string_view input : inputs) {
    if (input.empty() || input == "-" || input == ":memory:") continue;
    const std::string in_path(input);
    struct stat in {};
    // Two outputs of one command (bench's --save and --markdown) may name one file not there
    // yet: the same path then.
    const bool same = exists ? ::stat(in_path.c_str(), &in) == 0 && in.st_dev == out.st_dev &&
                                   in.st_ino == out.st_ino
                             : std::filesystem::weakly_canonical(in_path, ec) ==
                                   std::filesystem::weakly_canonical(output, ec);
    if (same) {
      throw ExitStatus(2, "error: " + output + " is the same file as " + in_path +
                              ", which is being read; write to another file");
    }
  }
}

void require_file_inputs(std::initializer_list<std::string_view> inputs) {
  for (const std::string_view input : inputs) {
    const std::string path(input);
    if (path.empty() || path == ":memory:") continue;
    if (const char* kind = db::stream_kind(path)) {
      throw ExitStatus(2, "error: " + path + " is " + kind +
                              ", not a file; an input is read more than once and to its end, "
                              "so give a regular file (save a stream to one first)");
    }
  }
}

}  // namespace vktune::cli
