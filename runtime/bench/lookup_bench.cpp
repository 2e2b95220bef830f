// Lookup benchmark: Snapshot::load time (.db and exported JSON) and select() latency (exact and
// ranked-neighbours paths) over a synthetic database of 10,000 problems x 5 devices, each
// with 8 measured variants. Targets: .db load < 50 ms, lookup < 1 us.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <unistd.h>
#include <vector>

#include "db/json_io.h"
#include "runtime/bench/load_times.h"
#include "runtime/bench/synthetic.h"
#include "runtime/snapshot.h"

namespace {

using vktune::runtime::Snapshot;
using namespace vktune::runtime::bench;

std::shared_ptr<const Snapshot> g_snapshot;
constexpr uint32_t kProblems = 10000;
constexpr uint32_t kDevices = 5;

void BM_SelectExact(benchmark::State& state) {
  uint32_t i = 0;
  for (auto _ : state) {
    const auto s = g_snapshot->select(synthetic_device(i % kDevices), synthetic_problem((i * 7919) % kProblems));
    benchmark::DoNotOptimize(s);
    ++i;
  }
}

// Times select() over prebuilt queries, so query construction stays out of the figure.
void time_selects(benchmark::State& state, const std::vector<vktune::runtime::ProblemQuery>& queries) {
  std::vector<vktune::runtime::DeviceQuery> devices;
  for (uint32_t d = 0; d < kDevices; ++d) devices.push_back(synthetic_device(d));
  uint32_t i = 0;
  for (auto _ : state) {
    const auto s = g_snapshot->select(devices[i % kDevices], queries[i % queries.size()]);
    benchmark::DoNotOptimize(s);
    ++i;
  }
}

// Shapes between the tuned grid points (M, N, K all off-grid), so every lookup walks the tree
// for its neighbours and ranks their variants; counted, so a figure from another path shows.
void BM_SelectRanked(benchmark::State& state) {
  std::vector<vktune::runtime::ProblemQuery> queries;
  for (uint32_t i = 0; i < 1024; ++i) {
    auto q = synthetic_problem((i * 7919) % kProblems);
    q.m += 3;
    q.n += 96;
    q.k += 320;
    queries.push_back(q);
  }
  size_t ranked = 0;
  for (const auto& q : queries) {
    ranked += g_snapshot->select(synthetic_device(0), q).shape_match == vktune::runtime::ShapeMatch::ranked;
  }
  state.counters["ranked_share"] = double(ranked) / double(queries.size());
  time_selects(state, queries);
}

// Exact path with the queries prebuilt, so only select() is timed.
void BM_SelectExactPrebuilt(benchmark::State& state) {
  std::vector<vktune::runtime::ProblemQuery> queries;
  for (uint32_t i = 0; i < 1024; ++i) queries.push_back(synthetic_problem((i * 7919) % kProblems));
  time_selects(state, queries);
}

BENCHMARK(BM_SelectExactPrebuilt)->Repetitions(5)->ReportAggregatesOnly(true);
BENCHMARK(BM_SelectRanked)->Repetitions(5)->ReportAggregatesOnly(true);
BENCHMARK(BM_SelectExact)->Repetitions(5)->ReportAggregatesOnly(true);

// Loads `path` `times` times, the first snapshot kept in g_snapshot; the sorted load times in
// ms, or none on failure or when the winners differ from the first snapshot's (an export that
// lost rows).
std::vector<double> load_timed(const std::string& path, int times) {
  auto loads = vktune::runtime::bench::time_loads(path, times);
  if (!loads) return {};
  if (!g_snapshot) {
    g_snapshot = std::move(loads->snapshot);
  } else if (loads->snapshot->winner_count() != g_snapshot->winner_count()) {
    std::fprintf(stderr, "%s holds %zu winners, not %zu\n", path.c_str(),
                 loads->snapshot->winner_count(), g_snapshot->winner_count());
    return {};
  }
  return std::move(loads->ms);
}

void print_loads(const char* what, const std::string& path, const std::vector<double>& ms,
                 const char* target) {
  std::printf("Snapshot::load(%s, %.1f MB): median %.2f ms, min %.2f ms, max %.2f ms%s\n", what,
              double(std::filesystem::file_size(path)) / (1 << 20), ms[ms.size() / 2], ms.front(),
              ms.back(), target);
}

}  // namespace

int main(int argc, char** argv) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("vktune-lookup-bench-" + std::to_string(getpid()));
  fs::create_directories(dir);
  const std::string path = (dir / "synthetic.db").string();
  const auto t0 = std::chrono::steady_clock::now();
  write_synthetic_db(path, SyntheticShape{kProblems, kDevices, 64, 8});
  const double write_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();

  const auto db_loads = load_timed(path, 7);
  if (db_loads.empty()) return 1;
  std::printf("synthetic db: %u problems x %u devices, %zu winners, written in %.0f ms\n", kProblems,
              kDevices, g_snapshot->winner_count(), write_ms);
  print_loads(".db", path, db_loads, " (target < 50 ms)");

  // The same database exported as JSON: whole (winners plus every measurement), and the
  // winners-only export an engine is meant to load.
  const vktune::db::Store store = vktune::db::Store::open(path, vktune::db::OpenMode::read_only);
  const std::pair<const char*, vktune::db::ExportScope> exports[] = {
      {"synthetic.json", vktune::db::ExportScope::all},
      {"synthetic.winners.json", vktune::db::ExportScope::winners}};
  for (const auto& [name, scope] : exports) {
    const std::string json_path = (dir / name).string();
    std::ofstream(json_path, std::ios::binary) << vktune::db::export_json_text(store, -1, scope);
    const auto json_loads = load_timed(json_path, 3);
    if (json_loads.empty()) return 1;
    print_loads(name, json_path, json_loads, "");
  }

  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  g_snapshot.reset();
  fs::remove_all(dir);
  return 0;
}
