// merge / export / import / lookup functions behind the CLI subcommands (db/ops/db_tools.h).
#include "db/ops/db_tools.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/tools/report_fixture.h"
#include "tools/report/report.h"
#include "tools/report/tables.h"

namespace vktune::report {
namespace {

using namespace vktune::db::ops;
using namespace vktune::testing;

size_t rows(const std::string& path) {
  const db::Store s = db::Store::open(path, db::OpenMode::read_only);
  return s.measurements().size() + s.devices().size() + s.kernels().size() + s.problems().size() +
         s.runs().size();
}

TEST(DbTools, MergeIsLossFreeAndIdempotent) {
  TempDir dir;
  {
    db::Store a = db::Store::open(dir.file("a.db"));
    build_synthetic(a);
    db::Store b = db::Store::open(dir.file("b.db"));
    const int64_t d = b.upsert_device(synthetic_device(0x1234, "Other GPU"));
    const int64_t k = b.upsert_kernel(synthetic_kernel(kGemvFixed));
    const int64_t p = b.upsert_problem(fake_problem(1, 4096, 4096, 32, "q4gsw"));
    db::RunRecord r;
    r.uuid = "run-b";
    const int64_t run = b.begin_run(r);
    db::Measurement m;
    m.run_id = run;
    m.device_id = d;
    m.problem_id = p;
    m.kernel_id = k;
    m.median_ns = 12345;
    b.add_measurement(m);
  }
  const auto stats = merge_databases({dir.file("a.db"), dir.file("b.db")}, dir.file("c.db"));
  ASSERT_EQ(stats.size(), 2u);
  EXPECT_EQ(stats[0].devices, 2);
  EXPECT_EQ(stats[0].measurements, 25);
  EXPECT_EQ(stats[1].devices, 1);
  EXPECT_EQ(stats[1].kernels, 0);  // already there from a.db
  EXPECT_EQ(stats[1].problems, 0);
  EXPECT_EQ(stats[1].measurements, 1);
  const size_t merged = rows(dir.file("c.db"));
  EXPECT_EQ(merged, rows(dir.file("a.db")) + 1 + 1 + 1);  // device, run, measurement of b

  const auto again = merge_databases({dir.file("a.db"), dir.file("b.db")}, dir.file("c.db"));
  EXPECT_EQ(again[0], db::ImportStats{});
  EXPECT_EQ(again[1], db::ImportStats{});
  EXPECT_EQ(rows(dir.file("c.db")), merged);

  EXPECT_THROW(merge_databases({dir.file("a.db")}, dir.file("a.db")), db::Error);
  EXPECT_THROW(merge_databases({dir.file("missing.db")}, dir.file("d.db")), db::Error);
}

TEST(DbTools, ExportImportRoundTrip) {
  TempDir dir;
  {
    db::Store a = db::Store::open(dir.file("a.db"));
    build_synthetic(a);
  }
  export_database(dir.file("a.db"), dir.file("a.json"));
  const auto doc = nlohmann::json::parse(slurp(dir.file("a.json")));
  EXPECT_EQ(doc["format"], "vktune-db");
  const db::ImportStats s = import_database(dir.file("a.json"), dir.file("b.db"));
  EXPECT_EQ(s.devices, 2);
  EXPECT_EQ(s.measurements, 25);
  EXPECT_EQ(rows(dir.file("b.db")), rows(dir.file("a.db")));
  EXPECT_EQ(import_database(dir.file("a.json"), dir.file("b.db")), db::ImportStats{});
  EXPECT_THROW(export_database(dir.file("missing.db"), dir.file("x.json")), db::Error);
  EXPECT_THROW(import_database(dir.file("missing.json"), dir.file("x.db")), db::Error);
  EXPECT_EQ(format_stats(s).rfind("devices +2, kernels +12", 0), 0u);
}

// Commands that read a database take an exported document as they take the .db it came from.
TEST(DbTools, OpenForReadingTakesExportedJson) {
  TempDir dir;
  {
    db::Store a = db::Store::open(dir.file("a.db"));
    build_synthetic(a);
  }
  export_database(dir.file("a.db"), dir.file("a.json"));
  const db::Store from_db = open_for_reading(dir.file("a.db"));
  const db::Store from_json = open_for_reading(dir.file("a.json"));
  EXPECT_EQ(from_json.label(), dir.file("a.json"));
  // The same summary but for the rates, which the export leaves out and the reader derives (the
  // fixture's stored ones are made up).
  auto without_rates = [](Summary s) {
    for (DeviceSummary& d : s.devices) {
      for (ProblemSummary& p : d.problems) {
        p.gbps = p.gflops = p.pct_bandwidth = std::nullopt;
        for (FamilyBest& f : p.family_best) f.gbps = f.gflops = std::nullopt;
      }
    }
    return s;
  };
  EXPECT_EQ(render_csv(without_rates(summarize(from_json))),
            render_csv(without_rates(summarize(from_db))));
  EXPECT_EQ(from_json.measurements({}).size(), 25u);
  // q4gsw does 2 M N K flops: the derived GFLOP/s of M=1 N=K=4096 is that over the median.
  size_t derived = 0;
  const Summary json_summary = summarize(from_json);
  for (const DeviceSummary& d : json_summary.devices) {
    for (const ProblemSummary& p : d.problems) {
      if (p.problem.op != "q4gsw" || p.problem.m != 1 || p.problem.n != 4096 ||
          p.problem.k != 4096)
        continue;
      ASSERT_TRUE(p.gflops && p.gbps) << p.winner_key;
      EXPECT_NEAR(*p.gflops * p.median_ns, 2.0 * 4096 * 4096, 1e-6 * 2.0 * 4096 * 4096);
      // At least the 4-bit weight (N K / 2 bytes) moved.
      EXPECT_GT(*p.gbps * p.median_ns, 4096.0 * 4096 / 2);
      ++derived;
    }
  }
  EXPECT_GT(derived, 0u);

  std::ofstream(dir.file("broken.json")) << "{\"format\": \"vktune-db\", \"devices\": 3}";
  try {
    open_for_reading(dir.file("broken.json"));
    FAIL() << "a broken document was read";
  } catch (const db::Error& e) {
    EXPECT_NE(std::string(e.what()).find("broken.json"), std::string::npos) << e.what();
  }
  EXPECT_THROW(open_for_reading(dir.file("none.json")), db::Error);
}

TEST(DbTools, ParseU32) {
  EXPECT_EQ(parse_u32("0x10de", "--vendor-id"), 0x10deu);
  EXPECT_EQ(parse_u32("0X10DE", "--vendor-id"), 0x10deu);
  EXPECT_EQ(parse_u32("4318", "--vendor-id"), 4318u);
  EXPECT_THROW(parse_u32("", "--vendor-id"), db::Error);
  EXPECT_THROW(parse_u32("0x", "--vendor-id"), db::Error);
  EXPECT_THROW(parse_u32("12ab", "--vendor-id"), db::Error);
  EXPECT_THROW(parse_u32("0x100000000", "--vendor-id"), db::Error);
}

class LookupTest : public ::testing::Test {
 protected:
  // The decode problem build_synthetic tuned (kGemvTuned wins it).
  static constexpr runtime::ProblemQuery kDecodeQuery{
      .op = "q4gsw", .m = 1, .n = 4096, .k = 4096, .group_size = 32};

  void SetUp() override {
    dir_ = std::make_unique<TempDir>();
    path_ = dir_->file("a.db");
    db::Store s = db::Store::open(path_);
    build_synthetic(s);
  }
  std::unique_ptr<TempDir> dir_;
  std::string path_;
};

TEST_F(LookupTest, FlagsCompletedFromDatabaseGiveExactMatch) {
  const db::Catalog catalog = read_catalog(path_);
  DeviceFlags flags;
  flags.vendor_id = 0x10de;
  flags.device_id = 0x2684;
  const runtime::LookupDevice d = device_from_flags(flags, catalog);
  EXPECT_EQ(d.name, kDevice1Name);
  EXPECT_EQ(d.driver_version, 0x91000000u + 0x2684u);
  EXPECT_EQ(d.type, runtime::DeviceType::discrete);

  const runtime::ProblemQuery q = kDecodeQuery;
  const LookupResult text = lookup(catalog, d, q, false);
  EXPECT_TRUE(text.ok);
  EXPECT_NE(text.output.find(kGemvTuned), std::string::npos) << text.output;
  EXPECT_NE(text.output.find("exact"), std::string::npos) << text.output;

  const LookupResult json = lookup(catalog, d, q, true);
  const auto j = nlohmann::json::parse(json.output);
  EXPECT_EQ(j["selection"]["variant_key"], kGemvTuned);
  EXPECT_EQ(j["selection"]["device_match"], "exact");
  EXPECT_EQ(j["selection"]["shape_match"], "exact");
  EXPECT_EQ(j["device"]["vendor_id"], 0x10de);
  EXPECT_EQ(j["problem"]["m"], 1);
}

TEST_F(LookupTest, OtherDriverAndUnknownDevice) {
  const db::Catalog catalog = read_catalog(path_);
  runtime::ProblemQuery q = kDecodeQuery;

  DeviceFlags flags;
  flags.vendor_id = 0x10de;
  flags.device_id = 0x2684;
  flags.driver_version = 7;  // not in the database
  const auto other =
      nlohmann::json::parse(lookup(catalog, device_from_flags(flags, catalog), q, true).output);
  EXPECT_EQ(other["selection"]["device_match"], "other_driver");
  EXPECT_EQ(other["selection"]["variant_key"], kGemvTuned);

  DeviceFlags unknown;
  unknown.vendor_id = 0x8086;
  unknown.device_type = "integrated";
  const auto builtin =
      nlohmann::json::parse(lookup(catalog, device_from_flags(unknown, catalog), q, true).output);
  EXPECT_EQ(builtin["selection"]["device_match"], "builtin");
  EXPECT_EQ(builtin["selection"]["variant_key"], kGemvFixed);

  q.k = 4095;  // odd K: invalid query, not ok
  const LookupResult bad = lookup(catalog, device_from_flags(unknown, catalog), q, false);
  EXPECT_FALSE(bad.ok);
  EXPECT_NE(bad.output.find("odd"), std::string::npos) << bad.output;

  DeviceFlags no_vendor;
  EXPECT_THROW(device_from_flags(no_vendor, catalog), db::Error);
  unknown.device_type = "gpu";
  EXPECT_THROW(device_from_flags(unknown, catalog), db::Error);
}

TEST_F(LookupTest, ReadsExportedJsonToo) {
  export_database(path_, dir_->file("a.json"));
  const db::Catalog from_json = read_catalog(dir_->file("a.json"));
  const db::Catalog from_db = read_catalog(path_);
  EXPECT_EQ(from_json.devices.size(), from_db.devices.size());
  EXPECT_EQ(from_json.winners.size(), from_db.winners.size());
  EXPECT_THROW(read_catalog(dir_->file("missing.db")), db::Error);
}

}  // namespace
}  // namespace vktune::report
