// Snapshot::select's ranked path against a plain reference written from its definition
// (runtime/rank.h), over random databases and thousands of random untuned queries: the
// snapshot's precomputed, cache-laid-out form must pick exactly what the definition picks.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <numbers>
#include <optional>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "runtime/rank.h"
#include "runtime/snapshot.h"
#include "tests/runtime/fake_catalog.h"

namespace vktune::runtime {
namespace {

struct RefPick {
  std::string variant_key;
  const db::Problem* measured_on;
  double median_ns, distance;
};

// A random catalog: one device, kernels with random constraints, problems on a grid (so
// distance ties are common) in two group sizes, each with a ranked list of distinct kernels.
struct RandomDb {
  db::Catalog catalog;
  std::vector<Constraints> constraints;  // by kernel id - 1

  explicit RandomDb(uint32_t seed) {
    std::mt19937 rng(seed);
    catalog.devices.push_back(testing::FakeDb::device(0x10de, 0x2684, 100, "discrete", "A"));
    catalog.devices.back().id = 1;
    const uint32_t kernels = 24 + rng() % 40;
    for (uint32_t i = 0; i < kernels; ++i) {
      Constraints c;
      c.k_multiple = std::array{1u, 8u, 64u, 512u, 96u}[rng() % 5];
      c.n_multiple = std::array{1u, 4u, 512u, 3u}[rng() % 4];
      c.m_min = rng() % 6 == 0 ? 2 : 1;
      c.m_max = std::array{0u, 0u, 1u, 4u, 64u}[rng() % 5];
      c.k_max = rng() % 8 == 0 ? 4096 : 0;
      c.k_min = rng() % 8 == 1 ? 2048 : 0;
      const std::string json = "{\"k_multiple\":" + std::to_string(c.k_multiple) +
                               ",\"n_multiple\":" + std::to_string(c.n_multiple) +
                               ",\"m_min\":" + std::to_string(c.m_min) + ",\"m_max\":" +
                               std::to_string(c.m_max) + ",\"k_max\":" + std::to_string(c.k_max) +
                               ",\"k_min\":" + std::to_string(c.k_min) + "}";
      db::KernelRecord k = testing::fake_kernel("q4gsw_tiled[v=" + std::to_string(i) + "]", json);
      k.id = i + 1;
      catalog.kernels.push_back(k);
      constraints.push_back(c);
    }
    std::map<std::tuple<uint32_t, uint32_t, uint32_t, uint32_t>, bool> taken;
    for (int64_t id = 1; catalog.problems.size() < 400; ++id) {
      const uint32_t gs = rng() % 4 == 0 ? 128 : 32;
      const uint32_t m = 1u << (rng() % 9), n = 512u * (1 + rng() % 16), k = 512u * (1 + rng() % 16);
      if (!taken.emplace(std::tuple{m, n, k, gs}, true).second) continue;
      db::Problem p = testing::fake_problem(m, n, k, gs);
      p.id = static_cast<int64_t>(catalog.problems.size()) + 1;
      catalog.problems.push_back(p);
      // Mostly full lists; some winners alone, and times that tie.
      const uint32_t length = rng() % 10 == 0 ? 1 : 2 + rng() % 14;
      std::vector<uint32_t> order(kernels);
      for (uint32_t i = 0; i < kernels; ++i) order[i] = i;
      std::shuffle(order.begin(), order.end(), rng);
      double ns = 100 + rng() % 1000;
      for (uint32_t i = 0; i < length; ++i) {
        db::BestRow row{1, p.id, order[i] + 1, 1, 0, ns};
        if (i == 0) catalog.winners.push_back(row);
        catalog.ranked.push_back(row);
        if (rng() % 4 != 0) ns *= 1 + double(rng() % 1000) / 500;
      }
    }
  }

  // The definition of the ranked pick (runtime/rank.h), spelled out over the catalog; sums in
  // the order the snapshot adds them (a variant's listed entries, then its absent ones), so
  // exact ties of scores break alike. nullopt: too little to rank.
  std::optional<RefPick> pick(const ProblemQuery& q) const {
    const std::array<double, 3> lq{std::log(double(q.m)), std::log(double(q.n)), std::log(double(q.k))};
    struct Neighbour {
      double d2;
      const db::Problem* p;
      std::vector<const db::BestRow*> list;
      double distance = 0;
    };
    auto neighbour = [&](const db::Problem& p, double d2) {
      Neighbour nb{d2, &p, {}};
      for (const db::BestRow& r : catalog.ranked) {
        if (r.problem_id == p.id) nb.list.push_back(&r);
      }
      nb.distance = std::sqrt(d2);
      return nb;
    };
    // The kRankNeighbours nearest problems of a group size, ties to the smallest (M, N, K).
    auto nearest_of = [&](uint32_t group_size) {
      std::vector<Neighbour> found;
      for (const db::Problem& p : catalog.problems) {
        if (p.group_size != group_size) continue;
        // N and K count twice M (ShapeIndex::point).
        const double dx = lq[0] - std::log(double(p.m)), dy = 2 * (lq[1] - std::log(double(p.n))),
                     dz = 2 * (lq[2] - std::log(double(p.k)));
        found.push_back(neighbour(p, dx * dx + dy * dy + dz * dz));
      }
      std::sort(found.begin(), found.end(), [](const Neighbour& a, const Neighbour& b) {
        return std::tie(a.d2, a.p->m, a.p->n, a.p->k) < std::tie(b.d2, b.p->m, b.p->n, b.p->k);
      });
      found.resize(std::min(found.size(), kRankNeighbours));
      return found;
    };
    std::vector<Neighbour> all = nearest_of(q.group_size);
    // The other group size's nearest join them, after any neighbour as near, unless the query's
    // group size tuned their shape too; the nearest kMaxRankNeighbours of all stay.
    const uint32_t other = q.group_size == 32 ? 128 : 32;
    const double gs_distance = kOtherGroupSizeScale * std::abs(std::log(double(other) / double(q.group_size)));
    for (Neighbour nb : nearest_of(other)) {
      const bool shadowed = std::any_of(catalog.problems.begin(), catalog.problems.end(), [&](const db::Problem& p) {
        return p.group_size == q.group_size && std::tie(p.m, p.n, p.k) == std::tie(nb.p->m, nb.p->n, nb.p->k);
      });
      if (shadowed) continue;
      nb.distance = std::hypot(nb.distance, gs_distance);
      const auto at = std::find_if(all.begin(), all.end(),
                                   [&](const Neighbour& x) { return x.distance > nb.distance; });
      all.insert(at, nb);
      all.resize(std::min(all.size(), kMaxRankNeighbours));
    }
    size_t ranking = 0;
    for (const Neighbour& nb : all) ranking += nb.list.size() >= 2 ? 1 : 0;
    if (ranking < 2) return std::nullopt;

    auto log_ratio = [](const Neighbour& nb, size_t i) {
      return static_cast<float>(std::log(nb.list[i]->median_ns / nb.list[0]->median_ns));
    };
    auto legal = [&](int64_t kernel, const ProblemQuery& there) {
      return constraints[static_cast<size_t>(kernel - 1)].allows(there);
    };
    std::vector<int64_t> candidates;
    for (const Neighbour& nb : all) {
      for (size_t i = 0; i < std::min(nb.list.size(), kRankCandidatesPerNeighbour); ++i) {
        const int64_t kernel = nb.list[i]->kernel_id;
        if (legal(kernel, q) && std::find(candidates.begin(), candidates.end(), kernel) == candidates.end()) {
          candidates.push_back(kernel);
        }
      }
    }
    std::optional<RefPick> best;
    double best_score = std::numeric_limits<double>::infinity();
    for (const int64_t kernel : candidates) {
      double sum = 0, weight = 0;
      std::vector<bool> listed(all.size());
      std::optional<RefPick> first;
      for (size_t j = 0; j < all.size(); ++j) {
        const double d = all[j].distance + 0.1, w = 1 / (d * d);
        for (size_t i = 0; i < all[j].list.size(); ++i) {
          if (all[j].list[i]->kernel_id != kernel) continue;
          sum += w * log_ratio(all[j], i);
          weight += w;
          listed[j] = true;
          if (!first) first = RefPick{"", all[j].p, all[j].list[i]->median_ns, all[j].distance};
        }
      }
      for (size_t j = 0; j < all.size(); ++j) {
        const db::Problem& p = *all[j].p;
        const ProblemQuery there{q.op, q.dtype, p.m, p.n, p.k, p.group_size};
        if (listed[j] || all[j].list.empty() || !legal(kernel, there)) continue;
        const double d = all[j].distance + 0.1, w = 1 / (d * d);
        sum += w * std::max<double>(std::numbers::ln2, log_ratio(all[j], all[j].list.size() - 1));
        weight += w;
      }
      if (sum / weight < best_score) {
        best_score = sum / weight;
        best = first;
        best->variant_key = catalog.kernels[static_cast<size_t>(kernel - 1)].variant_key;
      }
    }
    return best;
  }
};

TEST(SelectRankedReference, PicksWhatTheDefinitionPicksOnRandomDatabases) {
  size_t ranked = 0, unranked = 0, other_group_size = 0;
  for (uint32_t seed = 1; seed <= 6; ++seed) {
    const RandomDb db(seed);
    std::string error;
    const auto snap = Snapshot::from_catalog(db.catalog, &error);
    ASSERT_TRUE(snap) << error;
    const DeviceQuery device = testing::query_for(db.catalog.devices[0]);
    std::mt19937 rng(seed * 7919);
    for (int i = 0; i < 500; ++i) {
      const uint32_t gs = rng() % 4 == 0 ? 128 : 32;
      // Off the grid and on it: an on-grid shape whose winner is illegal for it is ranked too.
      ProblemQuery q = testing::q4(1 + rng() % 300, 4 * (1 + rng() % 2500),
                                   gs * (1 + rng() % (9000 / gs)), gs);
      if (i % 4 == 0) {  // a tuned shape at the other group size, often not tuned at this one
        const db::Problem& p = db.catalog.problems[rng() % db.catalog.problems.size()];
        q = testing::q4(p.m, p.n, p.k, p.group_size == 32 ? 128 : 32);
      }
      const Selection s = snap->select(device, q);
      ASSERT_TRUE(s.ok()) << s.error;
      if (s.shape_match == ShapeMatch::exact) continue;
      const std::optional<RefPick> want = db.pick(q);
      const std::string where = "seed " + std::to_string(seed) + " query " + std::to_string(q.m) +
                                "x" + std::to_string(q.n) + "x" + std::to_string(q.k) + " gs " +
                                std::to_string(gs);
      if (!want) {
        EXPECT_NE(s.shape_match, ShapeMatch::ranked) << where;
        ++unranked;
        continue;
      }
      ++ranked;
      if (want->measured_on->group_size != q.group_size) ++other_group_size;
      ASSERT_EQ(s.shape_match, ShapeMatch::ranked) << where;
      EXPECT_EQ(s.matched_group_size, want->measured_on->group_size) << where;
      EXPECT_EQ(s.variant_key, want->variant_key) << where;
      EXPECT_EQ(std::tie(s.matched_m, s.matched_n, s.matched_k),
                std::tie(want->measured_on->m, want->measured_on->n, want->measured_on->k))
          << where;
      EXPECT_EQ(s.median_ns, want->median_ns) << where;
      EXPECT_EQ(s.shape_distance, want->distance) << where;
    }
  }
  // The databases must exercise both outcomes, or the comparison proves little.
  EXPECT_GT(ranked, 2000u);
  EXPECT_GT(unranked, 0u);
  EXPECT_GT(other_group_size, 20u);  // picks measured on the query's shape at another group size
}

}  // namespace
}  // namespace vktune::runtime
