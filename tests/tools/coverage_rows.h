// What the runs of a database covered, as comparable rows: the tune tests that split one run
// (--shard, --devices) check the parts against the whole with it.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <tuple>

#include "db/store.h"

namespace vktune::testing {

using CoverageRow = std::tuple<std::string, uint32_t, uint32_t, uint32_t, uint32_t, uint32_t, bool>;

// (op, m, n, k, legal, measured, budget_cut) of every coverage row of the database at `path`.
inline std::multiset<CoverageRow> covered(const std::string& path) {
  const db::Store store = db::Store::open(path, db::OpenMode::read_only);
  std::map<int64_t, db::Problem> problems;
  for (db::Problem& p : store.problems()) problems.emplace(p.id, std::move(p));
  std::multiset<CoverageRow> rows;
  for (const db::Coverage& c : store.coverage()) {
    const db::Problem& p = problems.at(c.problem_id);
    rows.emplace(p.op, p.m, p.n, p.k, c.legal, c.measured, c.budget_cut);
  }
  return rows;
}

}  // namespace vktune::testing
