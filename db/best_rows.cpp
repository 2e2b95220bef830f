// The `best` view and Catalog::ranked computed in C++ from one scan of the measurements
// (best_rows.h).
#include "db/best_rows.h"

#include <algorithm>
#include <array>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "db/run_order.h"

namespace vktune::db {
namespace {

// One ok measurement that may rank, with its run's rank (db/run_order.h).
struct Candidate {
  BestRow row;
  size_t run_rank;
  size_t variant;  // its kernel's variant key, numbered: kernels of one key share it
};

// The run a problem's ranked list is read first from (Catalog::ranked): of its candidates' runs,
// the one that measured the most distinct kernels there, the latest of those on a tie. Runs differ
// in clocks and protocol, so a kernel that run measured is ranked by its time there.
// Fills `runs` with the problem's distinct (run rank, kernel) pairs, sorted.
size_t reference_run(std::span<const Candidate> problem, std::vector<std::pair<size_t, int64_t>>& runs) {
  runs.clear();
  for (const Candidate& x : problem) runs.emplace_back(x.run_rank, x.row.kernel_id);
  std::sort(runs.begin(), runs.end());
  runs.erase(std::unique(runs.begin(), runs.end()), runs.end());
  size_t best = 0, best_count = 0;
  for (size_t i = 0, j = 0; i < runs.size(); i = j) {
    while (j < runs.size() && runs[j].first == runs[i].first) ++j;
    if (j - i >= best_count) {  // runs ascend: a tie goes to the later one
      best = runs[i].first;
      best_count = j - i;
    }
  }
  return best;
}

// The winner of one problem's candidates, sorted in the view's order: the first that is its
// variant's latest measurement there. A run measures a kernel once, and two kernels of one
// variant (sources before and after a change) in one run tie on recency as the view's do, so
// the faster of them, first in order, wins. `latest` is scratch: (variant, highest run rank).
const BestRow& latest_times_fastest(std::span<const Candidate> problem,
                                    std::vector<std::pair<size_t, size_t>>& latest) {
  latest.clear();
  for (const Candidate& x : problem) latest.emplace_back(x.variant, x.run_rank);
  std::sort(latest.begin(), latest.end());
  for (const Candidate& x : problem) {
    const auto newer =
        std::upper_bound(latest.begin(), latest.end(), std::pair(x.variant, x.run_rank));
    if (newer == latest.end() || newer->first != x.variant) return x.row;
  }
  return problem.front().row;  // unreachable: the latest of the first variant qualifies
}

// (kernel id, its variant key's number), sorted by id: kernels of one key share the number.
std::vector<std::pair<int64_t, size_t>> kernel_variants(const Connection& c) {
  std::vector<std::pair<int64_t, size_t>> out;
  Statement s(c, "SELECT id, variant_key FROM kernels ORDER BY variant_key, id");
  const int id = s.column_index("id");
  std::string previous;
  size_t number = 0;
  while (s.step()) {
    std::string k = s.text("variant_key");
    if (!out.empty() && k != previous) ++number;
    out.emplace_back(s.integer(id), number);
    previous = std::move(k);
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

void fast_best_rows(const Connection& c, size_t per_problem, Catalog& out) {
  // The view joins runs: a measurement whose run row is missing never wins.
  const RunOrder run_order = [&c] {
    std::vector<std::pair<int64_t, std::string>> runs;
    Statement s(c, "SELECT id, started_at FROM runs");
    const int id = s.column_index("id"), started = s.column_index("started_at");
    while (s.step()) runs.emplace_back(s.integer(id), std::string(s.text_view(started)));
    return RunOrder(std::move(runs));
  }();
  const std::vector<std::pair<int64_t, size_t>> variants = kernel_variants(c);
  using Triple = std::array<int64_t, 3>;  // device, problem, kernel
  std::vector<Candidate> candidates;
  std::vector<Triple> wrong;
  Statement s(c,
              "SELECT id, device_id, problem_id, kernel_id, run_id, median_ns, status = "
              "'wrong_result' AS wrong FROM measurements WHERE (status = 'ok' AND median_ns IS "
              "NOT NULL) OR status = 'wrong_result'");
  const int id = s.column_index("id"), device = s.column_index("device_id"),
            problem = s.column_index("problem_id"), kernel = s.column_index("kernel_id"),
            run = s.column_index("run_id"), median = s.column_index("median_ns"),
            is_wrong = s.column_index("wrong");
  while (s.step()) {
    if (s.integer(is_wrong) != 0) {
      wrong.push_back({s.integer(device), s.integer(problem), s.integer(kernel)});
      continue;
    }
    const int64_t run_id = s.integer(run);
    const std::optional<size_t> run_rank = run_order.rank(run_id);
    if (!run_rank) continue;
    const int64_t kernel_id = s.integer(kernel);
    const auto v = std::lower_bound(variants.begin(), variants.end(), std::pair(kernel_id, size_t{0}));
    if (v == variants.end() || v->first != kernel_id) continue;  // the view joins kernels too
    candidates.push_back({BestRow{s.integer(device), s.integer(problem), kernel_id, run_id,
                                  s.integer(id), s.real(median)},
                          *run_rank, v->second});
  }
  if (!wrong.empty()) {
    std::sort(wrong.begin(), wrong.end());
    std::erase_if(candidates, [&](const Candidate& x) {
      return std::binary_search(wrong.begin(), wrong.end(),
                                Triple{x.row.device_id, x.row.problem_id, x.row.kernel_id});
    });
  }
  // ORDER BY median_ns, started_at DESC, run_id DESC within each (device, problem).
  std::sort(candidates.begin(), candidates.end(), [](const Candidate& a, const Candidate& b) {
    if (a.row.device_id != b.row.device_id) return a.row.device_id < b.row.device_id;
    if (a.row.problem_id != b.row.problem_id) return a.row.problem_id < b.row.problem_id;
    if (a.row.median_ns != b.row.median_ns) return a.row.median_ns < b.row.median_ns;
    if (a.run_rank != b.run_rank) return a.run_rank > b.run_rank;
    return a.row.measurement_id < b.row.measurement_id;
  });
  std::vector<std::pair<size_t, int64_t>> scratch;
  std::vector<std::pair<size_t, size_t>> latest;
  for (size_t first = 0, end = 0; first < candidates.size(); first = end) {
    const BestRow& head = candidates[first].row;
    while (end < candidates.size() && candidates[end].row.device_id == head.device_id &&
           candidates[end].row.problem_id == head.problem_id) {
      ++end;
    }
    const std::span rows(candidates.begin() + static_cast<ptrdiff_t>(first),
                         candidates.begin() + static_cast<ptrdiff_t>(end));
    out.winners.push_back(latest_times_fastest(rows, latest));
    const size_t reference = reference_run(rows, scratch);
    const auto in_reference = [&](int64_t kernel_id) {
      return std::binary_search(scratch.begin(), scratch.end(), std::pair(reference, kernel_id));
    };
    const size_t ranked_first = out.ranked.size();
    for (const Candidate& x : rows) {
      // A kernel the reference run measured ranks by its time there; one only other runs
      // measured (a family re-tuned on its own, variants added by --fill) by its best time
      // elsewhere: left out, a whole family would read as absent, i.e. slow.
      if ((x.run_rank != reference && in_reference(x.row.kernel_id)) ||
          std::any_of(out.ranked.begin() + static_cast<ptrdiff_t>(ranked_first), out.ranked.end(),
                      [&](const BestRow& r) { return r.kernel_id == x.row.kernel_id; })) {
        continue;  // another run's time of a kernel the reference timed, or a slower result
      }
      out.ranked.push_back(x.row);
      if (out.ranked.size() - ranked_first == per_problem) break;
    }
  }
}

}  // namespace vktune::db
