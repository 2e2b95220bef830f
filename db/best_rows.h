// The winners and ranked lists of a catalog (Store::catalog), read in one pass over the
// measurements rather than through the `best` view.
#pragma once

#include <cstddef>

#include "db/records.h"
#include "db/sqlite.h"

namespace vktune::db {

// The `best` view's rule without SQLite's window sort or its per-row NOT EXISTS probe
// (catalog() at 50,000 results: 70-110 ms before, 16-25 ms with this and the by-index problem
// reads, which keeps runtime snapshot loads under 50 ms). Runs are ranked once by
// (started_at, id), so "started_at DESC, run_id DESC" is one integer compare;
// measurements are read in one plain scan that also collects the wrong_result triples; the
// winner of each (device, problem) is the first of its candidates in the view's order.
// Exact ties (same run and median) go to the lower measurement id; a variant competes with its
// latest time only (schema v5); the ranked lists keep every run's. Store_test's
// CatalogWinnersEqualBestView keeps this in step with the view. Fills `out.winners` and
// `out.ranked` (Catalog::ranked: up to `per_problem` kernels of each problem, those its
// reference run measured by their time there, the rest by their best time elsewhere).
void fast_best_rows(const Connection& c, size_t per_problem, Catalog& out);

}  // namespace vktune::db
