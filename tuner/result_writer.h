// The store stage: results are written in small batches, one transaction each, instead of one
// commit per result (each commit of a WAL database syncs the disk). A batch is committed at the
// end of each measurement batch and whenever its oldest result has waited `max_delay`, so a
// killed run loses at most about a second of results; --resume measures those again.
#pragma once

#include <chrono>
#include <cstddef>
#include <vector>

#include "db/records.h"

namespace vktune::db {
class Store;
}

namespace vktune::tuner {

class ResultWriter {
 public:
  explicit ResultWriter(db::Store& store,
                        std::chrono::milliseconds max_delay = std::chrono::milliseconds(1000))
      : store_(store), max_delay_(max_delay) {}
  // Commits what is pending; a failure there is not thrown from a destructor (the results are
  // lost as in a kill, and --resume measures them again).
  ~ResultWriter();
  ResultWriter(const ResultWriter&) = delete;
  ResultWriter& operator=(const ResultWriter&) = delete;

  // Queues `m` (a later result for the same run, device, problem and kernel replaces it) and
  // commits the queue if its oldest result is due.
  void add(const db::Measurement& m);
  // Commits every queued result in one transaction.
  void flush();
  size_t pending() const noexcept { return pending_.size(); }

 private:
  db::Store& store_;
  std::chrono::milliseconds max_delay_;
  std::vector<db::Measurement> pending_;
  std::chrono::steady_clock::time_point oldest_;
};

}  // namespace vktune::tuner
