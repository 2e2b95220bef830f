// A claim on one tuning run of a database file, so two processes never continue the same run
// (two `tune --resume`, or a resume beside the run it would continue): the second is refused
// with the first one's process id instead of repeating its work.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

namespace vktune::tuner {

// Thrown when another open claim holds the run; what() names the process and the fix.
class RunClaimed : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Owns an open-file-description lock (F_OFD_SETLK) on run `run_id`'s 16-byte record of
// `<db>-runs.lock`, which holds the owner's process id while the claim lives. Move-only; the
// destructor clears the record and releases the lock, as a kill does (the kernel drops it), so
// a killed run can always be resumed. Such locks conflict between processes and between two
// claims of one process, but only on one host: a database on a network file system shared by
// several machines is not protected. The last claim to let go removes the lock file, so none
// is left beside the database once no run is being tuned (a killed process's file stays until
// the next claim's release).
class RunLock {
 public:
  // Claims the run. Throws RunClaimed when another claim holds it, std::runtime_error naming
  // the lock file when it cannot be created or locked.
  static RunLock acquire(const std::string& db_path, int64_t run_id);

  RunLock(RunLock&& other) noexcept;
  RunLock& operator=(RunLock&& other) noexcept;
  RunLock(const RunLock&) = delete;
  RunLock& operator=(const RunLock&) = delete;
  ~RunLock();

 private:
  RunLock(int fd, int64_t run_id) : fd_(fd), run_id_(run_id) {}
  void release() noexcept;

  int fd_ = -1;
  int64_t run_id_ = 0;
  std::string path_;  // the lock file, set once the claim holds its record there
};

}  // namespace vktune::tuner
