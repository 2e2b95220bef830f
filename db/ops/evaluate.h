// Leave-one-problem-out evaluation of the runtime's answers for untuned shapes (`vktune
// evaluate`): each problem is hidden in turn, the runtime built from the rest is asked for it,
// and its pick is read in the hidden problem's own measurements.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "db/records.h"
#include "db/store.h"
#include "runtime/selection.h"

namespace vktune::db::ops {

// One hidden (device, problem) and what the runtime picked for it.
struct EvaluationCase {
  std::string device;
  db::Problem problem;
  std::string picked;  // the pick's variant key
  // The hidden problem's fastest variant key and its time: in the run `regret` is read in, or
  // over every run for a miss.
  std::string best;
  double best_ns = 0;
  uint32_t best_samples = 0;        // the samples behind best_ns
  std::optional<double> picked_ns;  // the pick's time in that run; unset for a miss
  uint32_t picked_samples = 0;      // the samples behind picked_ns (a halving run's first
                                    // round takes one, a noisy figure); 0 for a miss
  // pick / best - 1, both timed in one run: of the runs that measured the pick there, the one
  // that measured the most variants there (the latest such, as db::Catalog::ranked reads them).
  // Runs differ in clocks and protocol (one H100 run's times are a third of another's on the
  // same problem), so a pick timed in one run against a best timed in another compares the
  // runs rather than the variants; the runtime's ranked ratios are read within one run for the
  // same reason (db::Catalog::ranked). Unset for a miss.
  std::optional<double> regret;
  // The same with each variant's best ok median over every run (what regret was before runs
  // were told apart), kept for comparison. Unset for a miss.
  std::optional<double> regret_across_runs;
  std::string miss;                 // why the pick has no time there; empty when it has one
  runtime::ShapeMatch shape_match = runtime::ShapeMatch::builtin;
  double shape_distance = 0;
};

// What is hidden with each problem: nothing more, or its shape at every group size too (a
// shape tuned at another group size ranks beside a query's neighbours, runtime/rank.h; hiding it
// measures the answers for shapes nobody tuned at any group size).
enum class Hide { problem, shape };

// What a set of regrets reads (all 0 for none): median, p90 (nearest rank) and max; how many
// picks run within 10% of the best; and the mean of ln(1 + regret), the log of the geometric mean
// slowdown, which neither a crowd of exact picks (the median) nor one outlier (the max) hides.
struct RegretSummary {
  size_t count = 0;
  double median = 0, p90 = 0, max = 0;
  size_t within_10pct = 0;
  double mean_log = 0;
};

struct Evaluation {
  Hide hide = Hide::problem;
  std::vector<EvaluationCase> cases;  // worst first: misses, then by regret, descending
  size_t misses = 0;
  RegretSummary regret;       // over the cases with a regret
  RegretSummary across_runs;  // the same over regret_across_runs
  // `regret` per class of problem: its op ("q4gsw"), and for attention its head counts as well
  // ("sdpa 32/8"), whose answers come from differently dense data.
  std::map<std::string, RegretSummary> by_class;
};

// What the runtime is built from: the catalog as a database or a full export gives it (each
// problem's fastest variants ranked), or as a document of winners without ranked rows gives
// it (the nearest winner copied): the before and after of ranking.
enum class RuntimeInput { ranked, winners };

// Hides each problem (from every device) in turn, builds runtime::Snapshot::from_catalog of
// the rest and selects for every device that measured the problem, with that device's exact
// fingerprint. A variant's time on a problem in a run is its best ok median there over that
// run's kernel builds of the same variant key (over every run, for regret_across_runs); a
// variant with a wrong_result there is not legal there.
// Throws db::Error when fewer than two problems have ok measurements (nothing to hide one
// from) or when a snapshot cannot be built.
// With Hide::shape, every problem of the hidden one's op, dtype, head counts and (M, N, K) is
// hidden with it.
Evaluation evaluate_leave_one_out(const db::Store& store,
                                  RuntimeInput input = RuntimeInput::ranked,
                                  Hide hide = Hide::problem);

// The summary and the `worst` worst cases as a text table, or as one JSON document.
std::string render_evaluation_text(const Evaluation& e, size_t worst);
std::string render_evaluation_json(const Evaluation& e, size_t worst);

}  // namespace vktune::db::ops
