// RunLock: one fixed-size record per run id in a lock file, locked with an OFD lock (released
// by the kernel when the process dies, never by another descriptor's close, unlike a POSIX
// lock) and holding the owner's pid for the refusal message.
#include "tuner/run_lock.h"

#include <fcntl.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
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

}  // namespace

RunLock RunLock::acquire(const std::string& db_path, int64_t run_id) {
  const std::string path = lock_path(db_path);
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) {
    throw std::runtime_error(path + ": cannot create the run lock file (" +
                             std::strerror(errno) + "); the database's directory must be writable");
  }
  RunLock lock(fd, run_id);
  struct flock range = record_range(run_id, F_WRLCK);
  if (::fcntl(fd, F_OFD_SETLK, &range) != 0) {
    const int error = errno;
    lock.fd_ = -1;  // not ours to clear: close without touching the record
    ::close(fd);
    if (error != EAGAIN && error != EACCES) {
      throw std::runtime_error(path + ": cannot lock run " + std::to_string(run_id) + " (" +
                               std::strerror(error) + ")");
    }
    std::array<char, kRecordBytes + 1> owner = {};
    const int again = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (again >= 0) {
      if (::pread(again, owner.data(), kRecordBytes, range.l_start) < 0) owner[0] = '\0';
      ::close(again);
    }
    // The owner writes its pid just after locking: an empty record means it is doing so now.
    const std::string who = owner[0] != '\0' ? "process " + std::string(owner.data())
                                             : "another process";
    throw RunClaimed("run " + std::to_string(run_id) + " of " + db_path + " is being tuned by " +
                     who + "; wait for it to finish (or stop it), then resume");
  }
  std::array<char, kRecordBytes> record = {};
  std::snprintf(record.data(), record.size(), "%ld", static_cast<long>(::getpid()));
  if (::pwrite(fd, record.data(), record.size(), range.l_start) != kRecordBytes) {
    throw std::runtime_error(path + ": cannot record the run's owner (" + std::strerror(errno) +
                             ")");
  }
  return lock;
}

RunLock::RunLock(RunLock&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)), run_id_(other.run_id_) {}

RunLock& RunLock::operator=(RunLock&& other) noexcept {
  if (this != &other) {
    release();
    fd_ = std::exchange(other.fd_, -1);
    run_id_ = other.run_id_;
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
  ::close(fd_);  // drops the OFD lock
  fd_ = -1;
}

}  // namespace vktune::tuner
