// Catalog::ranked: each problem's fastest distinct kernels, read from a database and carried
// by both exports.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <map>
#include <set>
#include <string>

#include "db/error.h"
#include "db/json_io.h"
#include "db/store.h"
#include "tests/db/fixtures.h"

namespace vktune::db {
namespace {

using namespace vktune::testing;

// Kernels per problem in ranked order.
std::vector<std::pair<int64_t, int64_t>> problem_kernels(const std::vector<BestRow>& rows) {
  std::vector<std::pair<int64_t, int64_t>> out;
  for (const BestRow& r : rows) out.emplace_back(r.problem_id, r.kernel_id);
  return out;
}

// Problem 1 measures more kernels than a ranked list keeps; problem 2 measures kernels 0 and
// 1 in `run` and kernel 0 again, faster, in `run2` (its winner), and kernel 2 with a wrong
// result in run2.
struct RankedStore {
  Store store = Store::open_memory();
  std::vector<int64_t> kernels;
  int64_t p1 = 0, p2 = 0;

  explicit RankedStore(bool with_spirv = true) {
    const auto device = store.upsert_device(fake_device());
    for (size_t i = 0; i < kRankedPerProblem + 3; ++i) {
      KernelRecord k = fake_kernel("q4gsw_tiled[v=" + std::to_string(i) + "]");
      if (!with_spirv) k.spirv.reset();
      kernels.push_back(store.upsert_kernel(k));
    }
    p1 = store.upsert_problem(fake_problem(1, 4096, 4096));
    p2 = store.upsert_problem(fake_problem(8, 4096, 4096));
    const auto run = store.begin_run({});
    const auto run2 = store.begin_run({});
    // Slowest first, so the order comes from the times, not the insertion.
    for (size_t i = kernels.size(); i-- > 0;) {
      store.add_measurement(ok_measurement(run, device, p1, kernels[i], 100.0 + double(i)));
    }
    store.add_measurement(ok_measurement(run, device, p2, kernels[0], 300));
    store.add_measurement(ok_measurement(run2, device, p2, kernels[0], 200));
    store.add_measurement(ok_measurement(run, device, p2, kernels[1], 250));
    store.add_measurement(ok_measurement(run, device, p2, kernels[2], 10));
    Measurement wrong = ok_measurement(run2, device, p2, kernels[2], 0);
    wrong.status = Status::wrong_result;
    wrong.median_ns.reset();
    store.add_measurement(wrong);
  }
};

// Problem 2's list is read from `run`, which measured two kernels there: kernel 1 (250) ahead
// of kernel 0 (300), though kernel 0's 200 in run2 makes it the winner. Across runs kernel 1
// would rank behind kernel 0, a comparison of the runs' clocks rather than the kernels.
TEST(Ranked, CatalogKeepsTheFastestDistinctKernelsOfEachProblemsWidestRun) {
  RankedStore s;
  const Catalog c = s.store.catalog(false);
  std::vector<std::pair<int64_t, int64_t>> want;
  for (size_t i = 0; i < kRankedPerProblem; ++i) want.emplace_back(s.p1, s.kernels[i]);
  want.emplace_back(s.p2, s.kernels[1]);
  want.emplace_back(s.p2, s.kernels[0]);
  EXPECT_EQ(problem_kernels(c.ranked), want);
  EXPECT_EQ(c.ranked[kRankedPerProblem].median_ns, 250.0);
  EXPECT_EQ(c.ranked[kRankedPerProblem + 1].median_ns, 300.0);
  EXPECT_EQ(c.winners, s.store.best());
}

// Two runs that measured as many kernels: the later one's times rank them and, being each
// kernel's latest, choose the winner too.
TEST(Ranked, ATieBetweenRunsGoesToTheLaterRun) {
  Store store = Store::open_memory();
  const auto device = store.upsert_device(fake_device());
  const auto k0 = store.upsert_kernel(fake_kernel("q4gsw_tiled[v=0]"));
  const auto k1 = store.upsert_kernel(fake_kernel("q4gsw_tiled[v=1]"));
  const auto p = store.upsert_problem(fake_problem(1, 4096, 4096));
  const auto early = store.begin_run({});
  const auto late = store.begin_run({});
  store.add_measurement(ok_measurement(early, device, p, k0, 100));
  store.add_measurement(ok_measurement(early, device, p, k1, 200));
  store.add_measurement(ok_measurement(late, device, p, k1, 300));
  store.add_measurement(ok_measurement(late, device, p, k0, 400));
  const Catalog c = store.catalog(false);
  const std::vector<std::pair<int64_t, int64_t>> want{{p, k1}, {p, k0}};
  EXPECT_EQ(problem_kernels(c.ranked), want);
  ASSERT_EQ(c.winners.size(), 1u);
  EXPECT_EQ(c.winners[0].kernel_id, k1);
  EXPECT_EQ(c.winners[0].run_id, late);
}

TEST(Ranked, BothExportsCarryTheRankedRows) {
  RankedStore s;
  const std::vector<BestRow> want = s.store.catalog(false).ranked;
  for (const ExportScope scope : {ExportScope::all, ExportScope::winners}) {
    const Catalog c = catalog_from_json(export_json_text(s.store, 1, scope), "doc");
    ASSERT_EQ(c.ranked.size(), want.size());
    for (size_t i = 0; i < want.size(); ++i) {
      EXPECT_EQ(c.problems[c.ranked[i].problem_id - 1].m,
                s.store.problems()[want[i].problem_id - 1].m);
      EXPECT_EQ(c.kernels[c.ranked[i].kernel_id - 1].variant_key,
                s.store.kernels()[want[i].kernel_id - 1].variant_key);
      EXPECT_EQ(c.ranked[i].median_ns, want[i].median_ns);
    }
  }
  // Winners only: the winners' measurements alone, so a re-import ranks the winners.
  const auto doc = nlohmann::json::parse(export_json_text(s.store, -1, ExportScope::winners));
  EXPECT_EQ(doc["measurements"].size(), 2u);
  EXPECT_EQ(doc["kernels"].size(), kRankedPerProblem);
  Store back = Store::open_memory();
  import_json(back, doc, "doc");
  EXPECT_EQ(back.catalog(false).ranked.size(), 2u);
}

// A winners export carries SPIR-V for the kernels a runtime can answer with, from the source
// where the store has none: problem 1's first kRankedPickable and problem 2's two (its winner
// among them); the rest of problem 1's list only scores, and goes without.
TEST(Ranked, WinnersExportCarriesSpirvForEveryAnswer) {
  RankedStore s(/*with_spirv=*/false);
  size_t asked = 0;
  // Its SPIR-V takes a specialisation the stored kernels lack (as this build's module of a kernel
  // stored before its family's sizes were specialised does): the document carries both.
  const SpirvSource source = [&asked](KernelRecord& k) {
    ++asked;
    k.spirv = fake_kernel("k").spirv.value();  // a SPIR-V header and one word
    k.specialization_json = "[[0,64]]";
  };
  const std::string text = export_json_text(s.store, 1, ExportScope::winners, source);
  EXPECT_EQ(nlohmann::json::parse(text)["version"], 3);
  const Catalog c = catalog_from_json(text, "doc");
  std::set<std::string> with_spirv;
  for (const KernelRecord& k : c.kernels) {
    if (!k.spirv) continue;
    with_spirv.insert(k.variant_key);
    EXPECT_EQ(k.specialization_json, "[[0,64]]") << k.variant_key;
  }
  std::set<std::string> want;
  for (size_t i = 0; i < kRankedPickable; ++i) want.insert("q4gsw_tiled[v=" + std::to_string(i) + "]");
  EXPECT_EQ(with_spirv, want);
  EXPECT_EQ(asked, kRankedPickable);
  for (const BestRow& w : c.winners) EXPECT_TRUE(c.kernels[w.kernel_id - 1].spirv);
  // Without a source those kernels go without; the full export never compiles.
  const Catalog plain = catalog_from_json(export_json_text(s.store, 1, ExportScope::winners), "doc");
  for (const KernelRecord& k : plain.kernels) EXPECT_FALSE(k.spirv);
  export_json(s.store, ExportScope::all, source);
  EXPECT_EQ(asked, kRankedPickable);
}

// Past each list's pickable head a runtime scores variants, not shader versions: a winners
// export names such a variant by one stored version, an answer kernel where there is one, else
// the newest. Problems 1 and 2 list three fast kernels, then variant X, in version a on problem 1
// and b on problem 2; where `x_answers`, problem 3's list starts with version a.
struct VersionedStore {
  Store store = Store::open_memory();
  int64_t x_a = 0, x_b = 0;

  explicit VersionedStore(bool x_answers) {
    const auto device = store.upsert_device(fake_device());
    std::vector<int64_t> head;
    for (int i = 0; i < int(kRankedPickable); ++i) {
      head.push_back(store.upsert_kernel(fake_kernel("q4gsw_tiled[v=" + std::to_string(i) + "]")));
    }
    KernelRecord x = fake_kernel("q4gsw_tiled[v=x]");
    x.source_hash = "a";
    x_a = store.upsert_kernel(x);
    x.source_hash = "b";
    x_b = store.upsert_kernel(x);
    const auto run = store.begin_run({});
    for (const auto& [m, x_version] : {std::pair{1u, x_a}, std::pair{2u, x_b}}) {
      const auto p = store.upsert_problem(fake_problem(m, 4096, 4096));
      for (size_t i = 0; i < head.size(); ++i) {
        store.add_measurement(ok_measurement(run, device, p, head[i], 100.0 + double(i)));
      }
      store.add_measurement(ok_measurement(run, device, p, x_version, 500));
    }
    if (x_answers) {
      const auto p3 = store.upsert_problem(fake_problem(4, 4096, 4096));
      store.add_measurement(ok_measurement(run, device, p3, x_a, 100));
    }
  }
};

// The kernel each problem's last ranked row names in `c`, by problem M, and how many kernels of
// variant X `c` lists.
std::pair<std::map<uint32_t, std::string>, size_t> last_rows(const Catalog& c) {
  std::map<uint32_t, std::string> last;
  for (const BestRow& r : c.ranked) {
    const KernelRecord& k = c.kernels[r.kernel_id - 1];
    last[c.problems[r.problem_id - 1].m] = k.variant_key + "@" + k.source_hash;
  }
  size_t x = 0;
  for (const KernelRecord& k : c.kernels) x += k.variant_key == "q4gsw_tiled[v=x]" ? 1 : 0;
  return {last, x};
}

TEST(Ranked, WinnersExportNamesAScoringVariantByOneVersion) {
  const std::string x_a = "q4gsw_tiled[v=x]@a", x_b = "q4gsw_tiled[v=x]@b";
  {
    VersionedStore s(/*x_answers=*/false);
    const auto [full, full_x] = last_rows(catalog_from_json(export_json_text(s.store), "doc"));
    EXPECT_EQ(full, (std::map<uint32_t, std::string>{{1, x_a}, {2, x_b}}));
    EXPECT_EQ(full_x, 2u);
    const auto [last, x] =
        last_rows(catalog_from_json(export_json_text(s.store, 1, ExportScope::winners), "doc"));
    EXPECT_EQ(last, (std::map<uint32_t, std::string>{{1, x_b}, {2, x_b}}));
    EXPECT_EQ(x, 1u);
  }
  VersionedStore s(/*x_answers=*/true);
  const auto [last, x] =
      last_rows(catalog_from_json(export_json_text(s.store, 1, ExportScope::winners), "doc"));
  EXPECT_EQ(last, (std::map<uint32_t, std::string>{{1, x_a}, {2, x_a}, {4, x_a}}));
  EXPECT_EQ(x, 1u);
}

TEST(Ranked, ADocumentWithoutRankedRowsRanksItsWinners) {
  RankedStore s;
  auto doc = export_json(s.store);
  doc.erase("ranked");
  doc["columns"].erase("ranked");
  const Catalog c = catalog_from_json(doc.dump(), "doc");
  EXPECT_EQ(c.ranked, c.winners);
}

TEST(Ranked, ABadRankedRowIsAnError) {
  RankedStore s;
  auto doc = export_json(s.store);
  doc["ranked"][0][2] = 9999;
  EXPECT_THROW(catalog_from_json(doc.dump(), "doc"), Error);
  Store back = Store::open_memory();
  EXPECT_THROW(import_json(back, doc, "doc"), Error);
}

}  // namespace
}  // namespace vktune::db
