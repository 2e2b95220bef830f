// Snapshot::select for untuned shapes: the nearest problems' variants ranked, exact hits kept,
// and a database of winners alone answered by the nearest winner, flagged as such.
#include <gtest/gtest.h>

#include <cmath>

#include "runtime/snapshot.h"
#include "tests/runtime/fake_catalog.h"

namespace vktune::runtime {
namespace {

using testing::q4;

TEST(SelectRanked, AnUntunedShapeGetsTheVariantGoodOnBothNeighbours) {
  testing::RankedDb db;
  const auto snap = db.snapshot();  // the Selection's views point into it
  const Selection s = snap->select(testing::query_for(db.a), q4(8, 4096, 4096));
  ASSERT_TRUE(s.ok()) << s.error;
  EXPECT_EQ(s.shape_match, ShapeMatch::ranked);
  EXPECT_EQ(s.device_match, DeviceMatch::exact);
  EXPECT_EQ(s.variant_key, "q4gsw_tiled[layout=raw,tm=8,tn=4,wg=64,bk=0]");
  // Measured on the nearer of the two (the tie goes to the smaller M): 120 ns at M=4.
  EXPECT_EQ(s.matched_m, 4u);
  EXPECT_EQ(s.median_ns, 120.0);
  EXPECT_NEAR(s.shape_distance, std::log(2.0), 1e-12);
}

TEST(SelectRanked, ExactStaysExact) {
  testing::RankedDb db;
  const auto snap = db.snapshot();
  const Selection s = snap->select(testing::query_for(db.a), q4(4, 4096, 4096));
  EXPECT_EQ(s.shape_match, ShapeMatch::exact);
  EXPECT_EQ(s.variant_key, "q4gsw_tiled[layout=raw,tm=4,tn=4,wg=64,bk=0]");
}

TEST(SelectRanked, WinnersAloneAnswerWithTheNearestWinner) {
  testing::RankedDb db;
  db::Catalog catalog = db.store.catalog();
  catalog.ranked = catalog.winners;  // what a document without the ranked section gives
  std::string error;
  const auto snap = Snapshot::from_catalog(catalog, &error);
  ASSERT_TRUE(snap) << error;
  const Selection s = snap->select(testing::query_for(db.a), q4(8, 4096, 4096));
  EXPECT_EQ(s.shape_match, ShapeMatch::nearest);
  EXPECT_EQ(s.variant_key, "q4gsw_tiled[layout=raw,tm=4,tn=4,wg=64,bk=0]");
}

}  // namespace
}  // namespace vktune::runtime
