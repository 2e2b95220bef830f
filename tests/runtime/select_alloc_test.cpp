// select() must not allocate: a counting global operator new proves it on every path.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <new>

#include "runtime/layers.h"
#include "runtime/snapshot.h"
#include "tests/runtime/fake_catalog.h"

namespace {
std::atomic<long> g_allocations{0};
}

void* operator new(std::size_t size) {
  ++g_allocations;
  if (void* p = std::malloc(size ? size : 1)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }

namespace vktune::runtime {
namespace {

TEST(SelectAlloc, NoPathAllocates) {
  testing::FakeDb db;
  const auto snap = db.snapshot();
  const DeviceQuery a = testing::query_for(db.a);
  DeviceQuery other = a;
  other.driver_version = 1;
  DeviceQuery unknown;
  const ProblemQuery queries[] = {testing::q4(1, 4096, 4096), testing::q4(16, 1024, 1024),
                                  testing::q4(16, 4100, 4096), testing::q4(0, 1, 1),
                                  ProblemQuery{"rms_norm", "f32", 8, 4096, 4096, 0},
                                  ProblemQuery{"nope", "f32", 1, 1, 1, 0}};
  const long before = g_allocations.load();
  size_t sink = 0;
  for (const auto& d : {a, other, unknown}) {
    for (const auto& q : queries) sink += snap->select(d, q).variant_key.size();
  }
  EXPECT_EQ(g_allocations.load() - before, 0);
  EXPECT_GT(sink, 0u);
}

TEST(SelectAlloc, RankingDoesNotAllocate) {
  testing::RankedDb db;
  const auto snap = db.snapshot();
  const DeviceQuery a = testing::query_for(db.a);
  const long before = g_allocations.load();
  const Selection s = snap->select(a, testing::q4(8, 4096, 4096));
  EXPECT_EQ(g_allocations.load() - before, 0);
  EXPECT_EQ(s.shape_match, ShapeMatch::ranked);
}

TEST(SelectAlloc, LayersDoNotAllocateWithLoggingOff) {
  testing::FakeDb system_db;
  testing::UserDb user_db;
  const Layers layers({user_db.snapshot(), system_db.snapshot()});
  const DeviceQuery a = testing::query_for(system_db.a);
  const long before = g_allocations.load();
  size_t sink = 0;
  for (const auto& q : {testing::q4(1, 4096, 4096), testing::q4(64, 4096, 4096),
                        testing::q4(16, 1024, 1024), testing::q4(0, 1, 1)}) {
    const Selection s = layers.select(a, q);
    sink += s.variant_key.size() + static_cast<size_t>(s.layer + 1);
  }
  EXPECT_EQ(g_allocations.load() - before, 0);
  EXPECT_GT(sink, 0u);
}

}  // namespace
}  // namespace vktune::runtime
