// Lookup benchmark: Snapshot::load time (.db and exported JSON) and select() latency (exact and
// nearest paths) over a synthetic database of 10,000 problems x 5 devices. Targets: .db load
// < 50 ms, lookup < 1 us.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <unistd.h>
#include <vector>

#include "db/json_io.h"
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

// Shapes between the tuned grid points (M, N, K all off-grid), so every lookup walks the tree.
void BM_SelectNearest(benchmark::State& state) {
  std::vector<vktune::runtime::ProblemQuery> queries;
  for (uint32_t i = 0; i < 1024; ++i) {
    auto q = synthetic_problem((i * 7919) % kProblems);
    q.m += 3;
    q.n += 96;
    q.k += 320;
    queries.push_back(q);
  }
  std::vector<vktune::runtime::DeviceQuery> devices;
  for (uint32_t d = 0; d < kDevices; ++d) devices.push_back(synthetic_device(d));
  uint32_t i = 0;
  for (auto _ : state) {
    const auto s = g_snapshot->select(devices[i % kDevices], queries[i & 1023]);
    benchmark::DoNotOptimize(s);
    ++i;
  }
}

// Exact path with the queries prebuilt, so only select() is timed.
void BM_SelectExactPrebuilt(benchmark::State& state) {
  std::vector<vktune::runtime::ProblemQuery> queries;
  for (uint32_t i = 0; i < 1024; ++i) queries.push_back(synthetic_problem((i * 7919) % kProblems));
  std::vector<vktune::runtime::DeviceQuery> devices;
  for (uint32_t d = 0; d < kDevices; ++d) devices.push_back(synthetic_device(d));
  uint32_t i = 0;
  for (auto _ : state) {
    const auto s = g_snapshot->select(devices[i % kDevices], queries[i & 1023]);
    benchmark::DoNotOptimize(s);
    ++i;
  }
}

BENCHMARK(BM_SelectExactPrebuilt)->Repetitions(5)->ReportAggregatesOnly(true);
BENCHMARK(BM_SelectNearest)->Repetitions(5)->ReportAggregatesOnly(true);
BENCHMARK(BM_SelectExact)->Repetitions(5)->ReportAggregatesOnly(true);

}  // namespace

int main(int argc, char** argv) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("vktune-lookup-bench-" + std::to_string(getpid()));
  fs::create_directories(dir);
  const std::string path = (dir / "synthetic.db").string();
  const auto t0 = std::chrono::steady_clock::now();
  write_synthetic_db(path, SyntheticShape{kProblems, kDevices, 64});
  const double write_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();

  std::vector<double> loads;
  std::string error;
  for (int i = 0; i < 7; ++i) {
    const auto start = std::chrono::steady_clock::now();
    g_snapshot = Snapshot::load(path, &error);
    loads.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
    if (!g_snapshot) {
      std::fprintf(stderr, "load failed: %s\n", error.c_str());
      return 1;
    }
  }
  std::sort(loads.begin(), loads.end());
  std::printf("synthetic db: %u problems x %u devices, %zu winners, written in %.0f ms\n", kProblems,
              kDevices, g_snapshot->winner_count(), write_ms);
  std::printf("Snapshot::load(.db): median %.2f ms, min %.2f ms, max %.2f ms (target < 50 ms)\n",
              loads[loads.size() / 2], loads.front(), loads.back());

  // The same database as an exported JSON document (winners plus every measurement).
  const std::string json_path = (dir / "synthetic.json").string();
  {
    std::ofstream out(json_path, std::ios::binary);
    out << vktune::db::export_json_text(vktune::db::Store::open(path, vktune::db::OpenMode::read_only));
  }
  std::vector<double> json_loads;
  for (int i = 0; i < 3; ++i) {
    const auto start = std::chrono::steady_clock::now();
    const auto from_json = Snapshot::load(json_path, &error);
    json_loads.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
    if (!from_json || from_json->winner_count() != g_snapshot->winner_count()) {
      std::fprintf(stderr, "JSON load failed: %s\n", error.c_str());
      return 1;
    }
  }
  std::sort(json_loads.begin(), json_loads.end());
  std::printf("Snapshot::load(.json, %.0f MB): median %.2f ms, min %.2f ms, max %.2f ms\n",
              double(fs::file_size(json_path)) / (1 << 20), json_loads[1], json_loads.front(),
              json_loads.back());

  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  g_snapshot.reset();
  fs::remove_all(dir);
  return 0;
}
