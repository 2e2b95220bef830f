// ShapeIndex against a brute-force scan: exact hits, and nearest answers (distance and the
// tie rule) over random grids with random winner constraints, so pruning bugs show up.
#include "runtime/shape_index.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <random>
#include <tuple>

namespace vktune::runtime {
namespace {

using Entry = ShapeIndex::Entry;

ProblemQuery q4(uint32_t m, uint32_t n, uint32_t k) { return ProblemQuery{"q4gsw", "f32", m, n, k, 32}; }

std::array<double, 3> logs(const ProblemQuery& q) { return ShapeIndex::point(q.m, q.n, q.k); }

// The distance's definition, squared: N and K count twice M.
double distance2(const ProblemQuery& q, const Entry& e) {
  const double dm = std::log(double(q.m)) - std::log(double(e.m)),
               dn = 2 * (std::log(double(q.n)) - std::log(double(e.n))),
               dk = 2 * (std::log(double(q.k)) - std::log(double(e.k)));
  return dm * dm + dn * dn + dk * dk;
}

// The definition: the legal entry of least distance, ties to the smallest (M, N, K).
const Entry* brute_nearest(const std::vector<Entry>& entries, const ProblemQuery& q, double& d2) {
  const Entry* best = nullptr;
  d2 = std::numeric_limits<double>::infinity();
  for (const Entry& e : entries) {
    if (!e.constraints.allows(q)) continue;
    const double d = distance2(q, e);
    if (d < d2 || (d == d2 && std::tie(e.m, e.n, e.k) < std::tie(best->m, best->n, best->k))) {
      best = &e;
      d2 = d;
    }
  }
  return best;
}

// A random point of a grid, so exact ties in distance are common.
Entry grid_entry(std::mt19937& rng) {
  Entry e;
  e.m = 1u << (rng() % 9);
  e.n = 256u * (1 + rng() % 32);
  e.k = 256u * (1 + rng() % 32);
  return e;
}

TEST(ShapeIndex, EmptyIndexFindsNothing) {
  const ShapeIndex index;
  EXPECT_EQ(index.exact(q4(1, 64, 64)), nullptr);
  EXPECT_EQ(index.nearest(q4(1, 64, 64), logs(q4(1, 64, 64))).entry, nullptr);
}

TEST(ShapeIndex, ExactFindsEveryEntryAndNothingElse) {
  std::vector<Entry> entries;
  for (uint32_t i = 0; i < 100; ++i) entries.push_back(Entry{1 + i % 7, 64 * (1 + i), 128, i, double(i), {}});
  const ShapeIndex index(entries);
  ASSERT_EQ(index.size(), 100u);
  for (const Entry& e : entries) {
    const Entry* hit = index.exact(q4(e.m, e.n, e.k));
    ASSERT_NE(hit, nullptr);
    EXPECT_EQ(hit->kernel, e.kernel);
  }
  EXPECT_EQ(index.exact(q4(1, 65, 128)), nullptr);
}

TEST(ShapeIndex, NearestMatchesBruteForce) {
  std::mt19937 rng(1234);
  for (const size_t count : {1u, 5u, 9u, 100u, 3000u}) {
    // Grid values, so exact ties in distance are common; a third of the winners cap M.
    std::vector<Entry> entries;
    for (size_t i = 0; i < count; ++i) {
      Entry e = grid_entry(rng);
      e.kernel = static_cast<uint32_t>(i);
      if (rng() % 3 == 0) e.constraints.m_max = 4;
      if (rng() % 5 == 0) e.constraints.n_multiple = 512;
      entries.push_back(e);
    }
    const ShapeIndex index(entries);
    for (int trial = 0; trial < 2000; ++trial) {
      const ProblemQuery q = q4(1 + rng() % 300, 64 * (1 + rng() % 150), 64 * (1 + rng() % 150));
      double d2 = 0;
      const Entry* want = brute_nearest(entries, q, d2);
      const ShapeIndex::Nearest got = index.nearest(q, logs(q));
      if (want == nullptr) {
        EXPECT_EQ(got.entry, nullptr);
        continue;
      }
      ASSERT_NE(got.entry, nullptr) << count << " entries, query " << q.m << "x" << q.n << "x" << q.k;
      EXPECT_EQ(std::tie(got.entry->m, got.entry->n, got.entry->k), std::tie(want->m, want->n, want->k))
          << count << " entries, query " << q.m << "x" << q.n << "x" << q.k;
      EXPECT_DOUBLE_EQ(got.distance, std::sqrt(d2));
    }
  }
}

// The definition of nearest_k: the k entries of least distance, legal or not, ties to the
// smallest (M, N, K).
TEST(ShapeIndex, NearestKMatchesBruteForce) {
  std::mt19937 rng(99);
  for (const size_t count : {1u, 7u, 100u, 3000u}) {
    std::vector<Entry> entries;
    for (size_t i = 0; i < count; ++i) {
      Entry e = grid_entry(rng);
      e.constraints.m_max = 1;  // illegal for most queries: nearest_k must not care
      entries.push_back(e);
    }
    const ShapeIndex index(entries);
    for (int trial = 0; trial < 500; ++trial) {
      const ProblemQuery q = q4(1 + rng() % 300, 64 * (1 + rng() % 150), 64 * (1 + rng() % 150));
      const auto lq = logs(q);
      std::vector<std::pair<double, std::tuple<uint32_t, uint32_t, uint32_t>>> want;
      for (const Entry& e : entries) want.emplace_back(distance2(q, e), std::tie(e.m, e.n, e.k));
      std::sort(want.begin(), want.end());
      std::array<ShapeIndex::Nearest, 6> got;
      const size_t found = index.nearest_k(lq, got);
      ASSERT_EQ(found, std::min<size_t>(6, count));
      for (size_t i = 0; i < found; ++i) {
        EXPECT_EQ(std::tie(got[i].entry->m, got[i].entry->n, got[i].entry->k), want[i].second)
            << count << " entries, neighbour " << i;
        EXPECT_DOUBLE_EQ(got[i].distance, std::sqrt(want[i].first));
      }
    }
  }
}

}  // namespace
}  // namespace vktune::runtime
