#include "db/run_order.h"

#include <algorithm>
#include <tuple>

namespace vktune::db {

RunOrder::RunOrder(std::vector<std::pair<int64_t, std::string>> runs) {
  std::sort(runs.begin(), runs.end(), [](const auto& a, const auto& b) {
    return std::tie(a.second, a.first) < std::tie(b.second, b.first);
  });
  rank_by_id_.reserve(runs.size());
  for (size_t i = 0; i < runs.size(); ++i) rank_by_id_.emplace_back(runs[i].first, i);
  std::sort(rank_by_id_.begin(), rank_by_id_.end());
}

std::optional<size_t> RunOrder::rank(int64_t run_id) const {
  const auto it = std::lower_bound(rank_by_id_.begin(), rank_by_id_.end(),
                                   std::pair<int64_t, size_t>(run_id, 0));
  if (it == rank_by_id_.end() || it->first != run_id) return std::nullopt;
  return it->second;
}

}  // namespace vktune::db
