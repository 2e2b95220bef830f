// db::RunOrder: the order in which the best view, Catalog::ranked and `vktune evaluate` take runs.
#include "db/run_order.h"

#include <gtest/gtest.h>

namespace vktune::db {
namespace {

TEST(RunOrder, ByStartThenByIdUnknownRunsHaveNoPlace) {
  // Run 7 began first; runs 3 and 5 began in the same second, 5 recorded later; ids out of order.
  const RunOrder order({{5, "2026-11-27T10:00:00Z"},
                        {7, "2026-11-26T09:00:00Z"},
                        {3, "2026-11-27T10:00:00Z"},
                        {9, "2026-11-27T11:30:00Z"}});
  EXPECT_EQ(order.rank(7), 0u);
  EXPECT_EQ(order.rank(3), 1u);
  EXPECT_EQ(order.rank(5), 2u);
  EXPECT_EQ(order.rank(9), 3u);
  EXPECT_EQ(order.rank(4), std::nullopt);
  EXPECT_EQ(RunOrder({}).rank(1), std::nullopt);
}

}  // namespace
}  // namespace vktune::db
