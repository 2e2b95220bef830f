// select() and load figures on a real database (default: the shipped H100 winners file), as a
// table: Snapshot::load of the document and of the same rows imported into a .db, and the
// latency of select() per path (exact shapes, and untuned shapes answered by ranking).
//
//   vktune_select_bench [--rounds N] [--loads N] [FILE.json|FILE.db|FILE.zst ...]
//
// Untuned shapes are each tuned problem moved off the grid (M up by a third, N by 64, K by two
// groups), so every one of them walks the index and ranks its neighbours' variants; the table
// says how many were answered by ranking. Each round times every query of a path, repeated
// for at least ~20 ms; the figure is the median round (and the fastest), in ns per select().
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <unistd.h>
#include <vector>

#include "db/database_file.h"
#include "db/json_io.h"
#include "db/store.h"
#include "kernels/op.h"
#include "runtime/bench/load_times.h"
#include "runtime/snapshot.h"
#include "runtime/stored_device.h"

namespace {

using namespace vktune;
using runtime::ProblemQuery;
using runtime::Snapshot;
using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

struct Figures {
  double median = 0, min = 0, max = 0;
};

Figures summarise(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return {v[v.size() / 2], v.front(), v.back()};
}

// ns per select() over `queries`: the median and fastest of `rounds` rounds.
Figures time_selects(const Snapshot& snap, const runtime::DeviceQuery& device,
                     const std::vector<ProblemQuery>& queries, int rounds) {
  size_t sink = 0;
  // Repeats per round so that one round takes ~20 ms.
  size_t repeats = 1;
  for (;;) {
    const auto t = Clock::now();
    for (size_t r = 0; r < repeats; ++r) {
      for (const auto& q : queries) sink += snap.select(device, q).variant_key.size();
    }
    if (ms_since(t) > 20 || repeats > (1u << 20)) break;
    repeats *= 2;
  }
  std::vector<double> ns;
  for (int round = 0; round < rounds; ++round) {
    const auto t = Clock::now();
    for (size_t r = 0; r < repeats; ++r) {
      for (const auto& q : queries) sink += snap.select(device, q).variant_key.size();
    }
    ns.push_back(ms_since(t) * 1e6 / double(repeats * queries.size()));
  }
  if (sink == 0) std::fprintf(stderr, "no select answered\n");
  return summarise(ns);
}

// `q`'s K off the tuned grid at width `n`: the width itself where the op derives K from N
// (rms_norm), else two groups on (unchanged for an op without groups, whose K is a head dim).
uint32_t moved_k(const ProblemQuery& q, uint32_t n) {
  const kernels::OpDescriptor* op = kernels::find_op(q.op);
  kernels::Problem derived;
  if (op != nullptr) {
    derived.op = *op;
    derived.n = n;
    derived = op->with_defaults(derived);
  }
  return derived.k != 0 ? derived.k : q.k + 2 * q.group_size;
}

double megabytes(const std::string& path) {
  return double(std::filesystem::file_size(path)) / (1 << 20);
}

int bench(const std::string& path, int rounds, int loads, const std::filesystem::path& scratch) {
  // The catalog says which device and problems the database holds.
  db::Catalog catalog;
  std::string db_path = path;
  if (db::is_sqlite_file(path)) {
    catalog = db::Store::open(path, db::OpenMode::read_only).catalog(false);
  } else {
    // A JSON document or a compressed database: the same rows as a .db too, as `vktune import`
    // would write them.
    const db::DatabaseContent content = db::database_content(db::read_regular_file(path), path);
    catalog = db::read_catalog(content, path, false);
    db_path = (scratch / (std::filesystem::path(path).filename().string() + ".db")).string();
    db::Store store = db::Store::open(db_path);
    if (content.form() == db::DatabaseForm::json) {
      db::import_json_text(store, content.text(), path);
    } else {
      store.merge_from(db::Store::open_image(content.bytes(), path));
    }
  }
  if (catalog.winners.empty()) {
    std::fprintf(stderr, "%s: no winners\n", path.c_str());
    return 1;
  }
  std::printf("%s: %zu devices, %zu problems, %zu kernels, %zu ranked rows\n", path.c_str(),
              catalog.devices.size(), catalog.problems.size(), catalog.kernels.size(),
              catalog.ranked.size());

  const auto doc_loads = runtime::bench::time_loads(path, loads);
  if (!doc_loads) return 1;
  const Figures load_doc = summarise(doc_loads->ms);
  const std::shared_ptr<const Snapshot> snap = doc_loads->snapshot;
  Figures load_db;
  if (db_path != path) {
    const auto db_loads = runtime::bench::time_loads(db_path, loads);
    if (!db_loads) return 1;
    load_db = summarise(db_loads->ms);
  }

  // Queries on the first winner's device: its problems, and each moved off the grid.
  const int64_t device_id = catalog.winners.front().device_id;
  runtime::DeviceQuery device;
  for (const auto& d : catalog.devices) {
    if (d.id == device_id) device = runtime::stored_device_query(d);
  }
  std::vector<ProblemQuery> exact, ranked, other;
  size_t off_grid = 0;
  for (const auto& w : catalog.winners) {
    if (w.device_id != device_id) continue;
    const db::Problem* p = nullptr;
    for (const auto& candidate : catalog.problems) {
      if (candidate.id == w.problem_id) p = &candidate;
    }
    if (p == nullptr) continue;
    const ProblemQuery q = runtime::stored_problem_query(*p);
    if (snap->select(device, q).shape_match == runtime::ShapeMatch::exact) exact.push_back(q);
    ProblemQuery moved = q;
    moved.m = q.m + std::max(1u, q.m / 3);
    moved.n = q.n + 64;
    moved.k = moved_k(q, moved.n);
    ++off_grid;
    const auto s = snap->select(device, moved);
    (s.shape_match == runtime::ShapeMatch::ranked ? ranked : other).push_back(moved);
  }

  std::printf("\n| %-34s | %8s | %10s | %10s |\n", "select() path", "queries", "median ns", "min ns");
  std::printf("|%s|%s|%s|%s|\n", std::string(36, '-').c_str(), std::string(9, '-').append(":").c_str(),
              std::string(11, '-').append(":").c_str(), std::string(11, '-').append(":").c_str());
  auto row = [&](const char* name, const std::vector<ProblemQuery>& queries) {
    if (queries.empty()) return;
    const Figures f = time_selects(*snap, device, queries, rounds);
    std::printf("| %-34s | %8zu | %10.0f | %10.0f |\n", name, queries.size(), f.median, f.min);
  };
  row("exact (tuned shapes)", exact);
  row("ranked (off-grid shapes)", ranked);
  row("off-grid, not ranked", other);
  std::printf("(%zu of %zu off-grid shapes answered by ranking; %d rounds)\n\n", ranked.size(),
              off_grid, rounds);

  std::printf("| %-34s | %8s | %10s | %10s |\n", "Snapshot::load", "MB", "median ms", "min ms");
  std::printf("|%s|%s|%s|%s|\n", std::string(36, '-').c_str(), std::string(9, '-').append(":").c_str(),
              std::string(11, '-').append(":").c_str(), std::string(11, '-').append(":").c_str());
  std::printf("| %-34s | %8.2f | %10.2f | %10.2f |\n",
              std::filesystem::path(path).filename().c_str(), megabytes(path), load_doc.median,
              load_doc.min);
  if (db_path != path) {
    std::printf("| %-34s | %8.2f | %10.2f | %10.2f |\n", "the same imported into a .db",
                megabytes(db_path), load_db.median, load_db.min);
  }
  std::printf("(%d loads each)\n", loads);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  int rounds = 15, loads = 7;
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--rounds" && i + 1 < argc) {
      rounds = std::max(1, std::atoi(argv[++i]));
    } else if (a == "--loads" && i + 1 < argc) {
      loads = std::max(1, std::atoi(argv[++i]));
    } else if (a.starts_with("-")) {
      std::fprintf(stderr, "usage: %s [--rounds N] [--loads N] [FILE.json|FILE.db|FILE.zst ...]\n", argv[0]);
      return 2;
    } else {
      files.push_back(a);
    }
  }
  if (files.empty()) files.push_back(VKTUNE_SOURCE_DIR "/db/tuned/nvidia-h100-80gb-hbm3.winners.json.zst");
  namespace fs = std::filesystem;
  const fs::path scratch = fs::temp_directory_path() / ("vktune-select-bench-" + std::to_string(getpid()));
  fs::create_directories(scratch);
  int rc = 0;
  try {
    for (const auto& f : files) rc |= bench(f, rounds, loads, scratch);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    rc = 1;
  }
  fs::remove_all(scratch);
  return rc;
}
