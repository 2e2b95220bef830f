// The one order in which every reader takes runs: by started_at, then by id, so of two runs
// begun in the same second the one recorded later counts as later. The `best` view and
// Catalog::ranked (db/best_rows.cpp) read runs in it, and so does `vktune evaluate`, which must
// judge the runtime's picks the way the runtime made them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace vktune::db {

class RunOrder {
 public:
  // From (run id, started_at) pairs in any order.
  explicit RunOrder(std::vector<std::pair<int64_t, std::string>> runs);

  // The run's place, 0 for the oldest; nullopt for an id no run row has.
  std::optional<size_t> rank(int64_t run_id) const;

 private:
  std::vector<std::pair<int64_t, size_t>> rank_by_id_;  // sorted by id
};

}  // namespace vktune::db
