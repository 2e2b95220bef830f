// write_file_atomically: O_TMPFILE (or a hidden named file), fsync, rename, fsync of the
// directory; write_output: the same, or standard output for "-".
#include "db/atomic_write.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <limits>
#include <vector>

#include "db/error.h"

namespace vktune::db {
namespace {

namespace fs = std::filesystem;

// The hidden name TempFile::rename_to links an O_TMPFILE under, for process `pid`.
std::string linked_name(const std::string& base, pid_t pid) {
  return "." + base + "." + std::to_string(pid) + ".tmp";
}

// Writes all of `bytes` to `fd`; false (errno set) on failure.
bool write_fully(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

// Owns the temporary file until it is renamed into place: closes it, and removes it when it has
// a name, on every failure path.
class TempFile {
 public:
  TempFile(const fs::path& dir, const std::string& base) : dir_(dir), base_(base) {
    fd_ = ::open(dir.c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666);
    if (fd_ >= 0) return;
    if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL) return;
    // No O_TMPFILE here: a hidden name that a kill may leave behind, but never the output.
    name_ = (dir / ("." + base + ".XXXXXX")).string();
    std::vector<char> pattern(name_.begin(), name_.end());
    pattern.push_back('\0');
    fd_ = ::mkstemp(pattern.data());
    if (fd_ < 0) {
      name_.clear();
      return;
    }
    name_ = pattern.data();
    // mkstemp creates 0600; give the output the mode a plain create would.
    const mode_t mask = ::umask(0);
    ::umask(mask);
    ::fchmod(fd_, 0666 & ~mask);
  }
  ~TempFile() {
    if (fd_ >= 0) ::close(fd_);
    if (!name_.empty()) ::unlink(name_.c_str());
  }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;

  bool ok() const { return fd_ >= 0; }

  bool write_all(std::string_view bytes) { return write_fully(fd_, bytes) && ::fsync(fd_) == 0; }

  // Gives the file its final name; false (errno set) on failure.
  bool rename_to(const fs::path& target) {
    if (name_.empty()) {
      // An O_TMPFILE file needs a name before rename(2) can put it over the target; link it
      // under one only this process uses, replacing a stale one a killed run left.
      name_ = (dir_ / linked_name(base_, ::getpid())).string();
      const std::string self = "/proc/self/fd/" + std::to_string(fd_);
      ::unlink(name_.c_str());
      if (::linkat(AT_FDCWD, self.c_str(), AT_FDCWD, name_.c_str(), AT_SYMLINK_FOLLOW) != 0) {
        name_.clear();
        return false;
      }
    }
    if (::rename(name_.c_str(), target.c_str()) != 0) return false;
    name_.clear();
    return true;
  }

 private:
  fs::path dir_;
  std::string base_;
  std::string name_;  // empty while the file has no name
  int fd_ = -1;
};

// Removes the .BASE.PID.tmp files in `dir` whose process no longer runs: what a kill between
// naming and renaming left. A name of a running process is another writer's, in flight.
void remove_stale_links(const fs::path& dir, const std::string& base) {
  const std::string prefix = "." + base + ".";
  std::error_code ec;
  for (const fs::directory_entry& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (!name.starts_with(prefix)) continue;
    // The number after the prefix is a pid only where linked_name gives this very name back.
    const long pid = std::strtol(name.c_str() + prefix.size(), nullptr, 10);
    if (pid <= 0 || pid > std::numeric_limits<pid_t>::max() ||
        name != linked_name(base, static_cast<pid_t>(pid))) {
      continue;
    }
    if (::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH) fs::remove(e.path(), ec);
  }
}

[[noreturn]] void fail(const std::string& path, const std::string& why) {
  throw Error("cannot write \"" + path + "\": " + why);
}

// Writes `bytes` into the character device or FIFO at `path` as a shell's `>` would (a FIFO
// blocks until a reader opens it), for there is nothing to replace: a rename over /dev/null
// would put a regular file in its place.
void write_through(const std::string& path, std::string_view bytes) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) fail(path, std::strerror(errno));
  const bool written = write_fully(fd, bytes);
  const int write_errno = errno;
  if (::close(fd) != 0 && written) fail(path, std::strerror(errno));
  if (!written) fail(path, std::strerror(write_errno));
}

}  // namespace

void write_file_atomically(const std::string& path, std::string_view bytes) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) fail(path, "it is a directory; give a file name");
  if (struct stat st {}; ::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)) return write_through(path, bytes);
    fail(path, "it is neither a regular file, a character device nor a FIFO; give a file name "
               "(or - for standard output)");
  }
  const fs::path target = fs::is_symlink(path, ec) ? fs::weakly_canonical(path, ec) : fs::path(path);
  const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  remove_stale_links(dir, target.filename().string());
  TempFile tmp(dir, target.filename().string());
  if (!tmp.ok()) {
    fail(path, std::string(std::strerror(errno)) + " (check that the directory exists and is writable)");
  }
  if (!tmp.write_all(bytes) || !tmp.rename_to(target)) fail(path, std::strerror(errno));
  // The rename is durable only once the directory is synced too.
  const int dir_fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd >= 0) {
    ::fsync(dir_fd);
    ::close(dir_fd);
  }
}

void write_output(const std::string& path, std::string_view bytes) {
  if (path == "-") {
    std::cout.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    std::cout.flush();
    if (!std::cout || std::fflush(stdout) != 0) {
      throw Error(std::string("cannot write the output to standard output: ") +
                  std::strerror(errno));
    }
    return;
  }
  write_file_atomically(path, bytes);
}

}  // namespace vktune::db
