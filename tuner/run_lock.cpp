// RunLock: one fixed-size record per run id in a lock file, locked with an OFD lock (released
// by the kernel when the process dies, never by another descriptor's close, unlike a POSIX
// lock) and holding the owner's pid for the refusal message.
#include "tuner/run_lock.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <thread>
#include <utility>

namespace vktune::tuner {
namespace {

constexpr off_t kRecordBytes = 16;

struct flock record_range(int64_t run_id, short type) {
  struct flock range = {};
  range.l_type = type;
  range.l_whence = SEEK_SET;
  range.l_start = static_cast<off_t>(run_id) * kRecordBytes;
  range.l_len = kRecordBytes;
  return range;
}

std::string lock_path(const std::string& db_path) { return db_path + "-runs.lock"; }

// The lock a releasing claim takes over the whole file before it removes the file; records are
// never locked that way, so a conflict with it means "the file is going away", not "claimed".
struct flock whole_file() {
  struct flock range = {};
  range.l_type = F_WRLCK;
  range.l_whence = SEEK_SET;
  return range;  // l_start 0, l_len 0: to the end of the file, however it grows
}

// Whether a refused lock of `range` is worth trying again: what kept it was a releasing
// claim's whole-file lock (or is gone already), not another claim of the run.
bool refused_by_remover(int fd, struct flock range) {
  if (::fcntl(fd, F_OFD_GETLK, &range) != 0) return false;
  return range.l_type == F_UNLCK || (range.l_start == 0 && range.l_len == 0);
}

// Whether `fd` is still the file at `path` (not one a releasing claim removed after we opened it).
bool still_linked(int fd, const std::string& path) {
  struct stat opened {}, named {};
  return ::fstat(fd, &opened) == 0 && ::stat(path.c_str(), &named) == 0 &&
         opened.st_dev == named.st_dev && opened.st_ino == named.st_ino;
}

// "process 1234", from the record the claim holding it wrote just after locking (an empty
// record: it is writing it now).
std::string owner_of(const std::string& path, off_t record_start) {
  std::array<char, kRecordBytes + 1> owner = {};
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd >= 0) {
    if (::pread(fd, owner.data(), kRecordBytes, record_start) < 0) owner[0] = '\0';
    ::close(fd);
  }
  return owner[0] != '\0' ? "process " + std::string(owner.data()) : "another process";
}

}  // namespace

RunLock RunLock::acquire(const std::string& db_path, int64_t run_id) {
  const std::string path = lock_path(db_path);
  for (;;) {
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) {
      throw std::runtime_error(path + ": cannot create the run lock file (" + std::strerror(errno) +
                               "); the database's directory must be writable");
    }
    RunLock lock(fd, run_id);
    struct flock range = record_range(run_id, F_WRLCK);
    if (::fcntl(fd, F_OFD_SETLK, &range) != 0) {
      const int error = errno;
      lock.fd_ = -1;  // not ours to clear: close without touching the record
      const bool removing = refused_by_remover(fd, range);
      ::close(fd);
      if (removing) {
        std::this_thread::yield();  // the last claim is removing the file: open the next one
        continue;
      }
      if (error != EAGAIN && error != EACCES) {
        throw std::runtime_error(path + ": cannot lock run " + std::to_string(run_id) + " (" +
                                 std::strerror(error) + ")");
      }
      throw RunClaimed("run " + std::to_string(run_id) + " of " + db_path +
                       " is being tuned by " + owner_of(path, range.l_start) +
                       "; wait for it to finish (or stop it), then resume");
    }
    if (!still_linked(fd, path)) continue;  // ~lock lets go of the removed file's record
    std::array<char, kRecordBytes> record = {};
    std::snprintf(record.data(), record.size(), "%ld", static_cast<long>(::getpid()));
    if (::pwrite(fd, record.data(), record.size(), range.l_start) != kRecordBytes) {
      throw std::runtime_error(path + ": cannot record the run's owner (" + std::strerror(errno) +
                               ")");
    }
    lock.path_ = path;
    return lock;
  }
}

RunLock::RunLock(RunLock&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)), run_id_(other.run_id_), path_(std::move(other.path_)) {}

RunLock& RunLock::operator=(RunLock&& other) noexcept {
  if (this != &other) {
    release();
    fd_ = std::exchange(other.fd_, -1);
    run_id_ = other.run_id_;
    path_ = std::move(other.path_);
  }
  return *this;
}

RunLock::~RunLock() { release(); }

void RunLock::release() noexcept {
  if (fd_ < 0) return;
  // Cleared so a later refusal never names a process that has let go; a failed write only
  // leaves a stale pid, which nobody reads while the record is unlocked.
  const std::array<char, kRecordBytes> zeros = {};
  [[maybe_unused]] const ssize_t cleared =
      ::pwrite(fd_, zeros.data(), zeros.size(), record_range(run_id_, F_WRLCK).l_start);
  // The last claim to let go removes the file, so a finished run leaves nothing beside the
  // database: the whole-file lock is granted only while no other claim holds a record, and a
  // claim that opened the file before the unlink sees it gone and opens a fresh one. Another
  // releaser may have removed this file between our unlocking and locking it whole, and the
  // path may name a newer file by then: only the file we hold whole is unlinked (while we hold
  // it, nobody can remove it, and nothing new can be created at its path).
  struct flock own = record_range(run_id_, F_UNLCK);
  struct flock all = whole_file();
  if (!path_.empty() && ::fcntl(fd_, F_OFD_SETLK, &own) == 0 &&
      ::fcntl(fd_, F_OFD_SETLK, &all) == 0 && still_linked(fd_, path_)) {
    ::unlink(path_.c_str());
  }
  ::close(fd_);  // drops the OFD locks
  fd_ = -1;
}

}  // namespace vktune::tuner
