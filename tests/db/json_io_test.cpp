// JSON export/import: a stable round trip, the compact version 2 layout and its precision, the
// rates derived on import, older documents still read (what is refused: json_rejects_test.cpp).
#include "db/json_io.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "db/error.h"
#include "tests/db/fixtures.h"
#include "tests/db/json_documents.h"

namespace vktune::db {
namespace {

using nlohmann::json;
using testing::cell;
using testing::cell_path;
using testing::exported;
using testing::exported_v1;
using testing::v1_document;

// Every table of `a` and `b` but the measurements holds the same rows.
void expect_same_rows_but_measurements(const Store& a, const Store& b) {
  EXPECT_EQ(a.devices(), b.devices());
  EXPECT_EQ(a.kernels(), b.kernels());
  EXPECT_EQ(a.problems(), b.problems());
  EXPECT_EQ(a.runs(), b.runs());
  EXPECT_EQ(a.best(), b.best());
  EXPECT_EQ(a.coverage(), b.coverage());
}

// Every table of `a` and `b` holds the same rows.
void expect_same_store(const Store& a, const Store& b) {
  expect_same_rows_but_measurements(a, b);
  EXPECT_EQ(a.measurements(), b.measurements());
}

TEST(JsonIo, DocumentHasFormatVersionAndSections) {
  json doc = exported();
  EXPECT_EQ(doc["format"], "vktune-db");
  // Its tiled kernel has specialisation constants.
  EXPECT_EQ(doc["version"], 3);
  EXPECT_EQ(kJsonFormatVersion, 3);
  EXPECT_EQ(doc["devices"].size(), 2u);
  EXPECT_EQ(doc["measurements"].size(), 5u);
  EXPECT_EQ(doc["winners"].size(), 3u);
  EXPECT_EQ(doc["kernels"][0]["spirv"], "AwIjBwAFAQAAAAAAAQAAAAAAAAD/////");
  // The column order is part of the format.
  EXPECT_EQ(doc["columns"]["measurements"],
            json({"run", "device", "problem", "kernel", "status", "n", "median_ns", "min_ns",
                  "p10_ns", "p90_ns", "max_error", "message"}));
  EXPECT_EQ(doc["columns"]["coverage"],
            json({"run", "device", "problem", "legal", "measured", "budget_cut", "stages"}));
  EXPECT_EQ(doc["columns"]["winners"], json({"device", "problem", "kernel", "run", "median_ns"}));
  // Rows are arrays; references are indices into the document's own sections. No rates.
  const double median = 1000;
  EXPECT_EQ(doc["measurements"][0], json::array({0, 0, 0, 0, "ok", 10, median, median * 0.9,
                                                 median * 0.95, median * 1.1, 0.01, ""}));
  EXPECT_EQ(doc["measurements"][4],
            json::parse(R"([0,1,1,0,"compile_error",0,null,null,null,null,null,
                            "shared memory exceeded"])"));
  ASSERT_EQ(doc["coverage"].size(), 2u);
  EXPECT_EQ(doc["runs"][cell(doc, "coverage", 0, "run").get<size_t>()]["uuid"], "run-a");
  EXPECT_EQ(doc["problems"][cell(doc, "coverage", 0, "problem").get<size_t>()]["m"], 1);
  EXPECT_EQ(cell(doc, "coverage", 0, "legal"), 2);
  EXPECT_EQ(cell(doc, "coverage", 0, "measured"), 2);
  EXPECT_EQ(cell(doc, "coverage", 0, "stages"), json({2, 1}));
  EXPECT_EQ(cell(doc, "coverage", 1, "budget_cut"), true);
  EXPECT_EQ(doc["winners"][0], json::parse("[0,0,0,0,1000.0]"));
}

// `m` as an export writes it and an import without a rate source reads it back.
Measurement as_written(Measurement m) {
  m.gbps = m.gflops = std::nullopt;
  return m;
}

TEST(JsonIo, RoundTripKeepsEveryRowAndIsStable) {
  Store a = Store::open_memory();
  testing::populate(a);
  const std::string text = export_json_text(a);
  Store b = Store::open_memory();
  const ImportStats added = import_json_text(b, text, "a.json");
  EXPECT_EQ(added, (ImportStats{2, 2, 2, 1, 5, 2}));
  expect_same_rows_but_measurements(a, b);
  std::vector<Measurement> expected = a.measurements();
  std::transform(expected.begin(), expected.end(), expected.begin(), as_written);
  EXPECT_EQ(b.measurements(), expected);
  EXPECT_NE(a.measurements(), expected);  // the rates differ: the check above means something
  EXPECT_EQ(export_json_text(b), text);
  // And so again: the written precision reads back as itself.
  Store c = Store::open_memory();
  import_json_text(c, export_json_text(b), "b.json");
  expect_same_store(b, c);
}

// sdpa's head counts travel with the problem (and keep two problems apart); the other ops'
// problems are written without them, as before they existed.
TEST(JsonIo, HeadsRoundTripAndStayOutOfOtherOps) {
  Store a = Store::open_memory();
  testing::populate(a);
  a.upsert_problem(Problem{0, "sdpa", "f32", 1, 512, 128, 0, 32, 8});
  a.upsert_problem(Problem{0, "sdpa", "f32", 1, 512, 128, 0, 24, 8});
  const json doc = export_json(a);
  Store b = Store::open_memory();
  import_json_text(b, doc.dump(), "heads.json");
  std::vector<Problem> heads;
  for (const Problem& p : b.problems()) {
    if (p.op == "sdpa") heads.push_back(p);
  }
  ASSERT_EQ(heads.size(), 2u);
  EXPECT_EQ(heads[0].heads + heads[1].heads, 56u);
  EXPECT_EQ(heads[0].kv_heads, 8u);
  const std::string text = export_json_text(a);
  EXPECT_EQ(export_json_text(b), text);
  size_t written = 0;
  for (size_t at = text.find("\"kv_heads\""); at != std::string::npos;
       at = text.find("\"kv_heads\"", at + 1)) {
    ++written;
  }
  EXPECT_EQ(written, 2u);  // the two sdpa problems only
}

// The same shape in f32 and f16 is two problems with a winner each, in the store and through an
// export and import.
TEST(JsonIo, ProblemsAreKeyedByDtype) {
  Store a = Store::open_memory();
  const auto device = a.upsert_device(testing::fake_device(0x10de, 0x2684, 1, "discrete"));
  const auto f32_kernel = a.upsert_kernel(testing::fake_kernel("q4gsw_naive[wg=64]"));
  const auto f16_kernel = a.upsert_kernel(testing::fake_kernel("q4gsw_naive_f16[wg=64]"));
  Problem half = testing::fake_problem(1, 4096, 4096);
  half.dtype = "f16";
  const auto p32 = a.upsert_problem(testing::fake_problem(1, 4096, 4096));
  const auto p16 = a.upsert_problem(half);
  ASSERT_NE(p32, p16);
  const auto run = a.begin_run({});
  a.add_measurement(testing::ok_measurement(run, device, p32, f32_kernel, 2000));
  a.add_measurement(testing::ok_measurement(run, device, p16, f16_kernel, 1000));

  Store b = Store::open_memory();
  import_json_text(b, export_json_text(a), "a.json");
  std::map<std::string, std::string> winner_by_dtype;
  const auto problems = b.problems();
  const auto kernels = b.kernels();
  for (const BestRow& best : b.best()) {
    const auto p = std::find_if(problems.begin(), problems.end(),
                                [&](const Problem& q) { return q.id == best.problem_id; });
    const auto k = std::find_if(kernels.begin(), kernels.end(),
                                [&](const KernelRecord& r) { return r.id == best.kernel_id; });
    ASSERT_TRUE(p != problems.end() && k != kernels.end());
    winner_by_dtype[p->dtype] = k->variant_key;
  }
  EXPECT_EQ(winner_by_dtype, (std::map<std::string, std::string>{{"f16", "q4gsw_naive_f16[wg=64]"},
                                                                 {"f32", "q4gsw_naive[wg=64]"}}));
}

TEST(JsonIo, TimesKeepFullPrecisionErrorsThreeDigits) {
  Store a = Store::open_memory();
  testing::populate(a);
  Measurement m = testing::ok_measurement(1, 1, 2, 1, 100000.0 / 3.0);
  m.min_ns = std::numeric_limits<double>::denorm_min();
  m.p10_ns = 0.1 + 0.2;
  m.p90_ns = std::numeric_limits<double>::max();
  m.max_error = 1.702981503924361e-07;
  a.add_measurement(m);
  for (int indent : {-1, 0, 1, 4}) {
    const std::string text = export_json_text(a, indent);
    EXPECT_NE(text.find(R"(,1.7e-07,"")"), std::string::npos) << "indent " << indent;
    Store b = Store::open_memory();
    import_json_text(b, text, "precise.json");
    const Measurement read = b.measurements().back();
    EXPECT_EQ(read.median_ns, m.median_ns);
    EXPECT_EQ(read.min_ns, m.min_ns);
    EXPECT_EQ(read.p10_ns, m.p10_ns);
    EXPECT_EQ(read.p90_ns, m.p90_ns);
    EXPECT_EQ(read.max_error, 1.7e-07);
    EXPECT_EQ(export_json_text(b, indent), text) << "indent " << indent;
  }
}

// The rates an export leaves out come from the import's rate source, for every row with a median,
// from its problem, its kernel and that median.
TEST(JsonIo, RatesAreDerivedWhereTheDocumentLeavesThemOut) {
  ImportChecks checks;
  checks.rates = [](const Problem& p, const KernelRecord& k, double median_ns) {
    return std::optional<Rates>(Rates{p.m * 1e6 / median_ns, k.workgroup_size / median_ns});
  };
  Store b = Store::open_memory();
  import_json(b, exported(), "derived.json", checks);
  std::map<int64_t, Problem> problems;
  std::map<int64_t, KernelRecord> kernels;
  for (const Problem& p : b.problems()) problems[p.id] = p;
  for (const KernelRecord& k : b.kernels()) kernels[k.id] = k;
  size_t derived = 0;
  for (const Measurement& m : b.measurements()) {
    if (!m.median_ns) {
      EXPECT_EQ(m.gbps, std::nullopt);
      EXPECT_EQ(m.gflops, std::nullopt);
      continue;
    }
    EXPECT_EQ(m.gbps, problems.at(m.problem_id).m * 1e6 / *m.median_ns);
    EXPECT_EQ(m.gflops, kernels.at(m.kernel_id).workgroup_size / *m.median_ns);
    ++derived;
  }
  EXPECT_EQ(derived, 4u);
}

// A version 2 document that carries the rates (gbps, gflops between max_error and message) keeps
// them: they are the document's, whatever a rate source would say.
TEST(JsonIo, DocumentWithRateColumnsImports) {
  json doc = exported();
  // Before the message, the last column.
  auto insert_rates = [](json& row, const json& gbps, const json& gflops) {
    row.insert(row.end() - 1, gflops);
    row.insert(row.end() - 2, gbps);
  };
  insert_rates(doc["columns"]["measurements"], "gbps", "gflops");
  for (json& row : doc["measurements"]) {
    const bool timed = !row[6].is_null();
    insert_rates(row, timed ? json(123.5) : json(nullptr), timed ? json(30.25) : json(nullptr));
  }
  ImportChecks checks;
  checks.rates = [](const Problem&, const KernelRecord&, double) {
    return std::optional<Rates>(Rates{1, 1});
  };
  Store s = Store::open_memory();
  EXPECT_EQ(import_json(s, doc, "with-rates.json", checks), (ImportStats{2, 2, 2, 1, 5, 2}));
  const std::vector<Measurement> rows = s.measurements();
  ASSERT_EQ(rows.size(), 5u);
  EXPECT_EQ(rows[0].gbps, 123.5);
  EXPECT_EQ(rows[0].gflops, 30.25);
  EXPECT_EQ(rows[0].message, "");
  EXPECT_EQ(rows[4].gbps, std::nullopt);
  EXPECT_EQ(rows[4].message, "shared memory exceeded");
  // Exported again it leaves them out.
  EXPECT_EQ(export_json(s)["columns"]["measurements"], exported()["columns"]["measurements"]);
}

TEST(JsonIo, TextHasOneRowALine) {
  Store a = Store::open_memory();
  testing::populate(a);
  const json doc = export_json(a);
  for (int indent : {-1, 0, 1, 2}) {
    const std::string text = export_json_text(a, indent);
    EXPECT_EQ(json::parse(text), doc) << text;
    std::set<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
      lines.insert(line.substr(line.find_first_not_of(' ')));
    }
    for (const char* section : {"measurements", "coverage", "winners"}) {
      for (size_t i = 0; i < doc[section].size(); ++i) {
        const bool last = i + 1 == doc[section].size();
        EXPECT_TRUE(lines.count(doc[section][i].dump() + (last ? "" : ",")))
            << section << "[" << i << "] with indent " << indent << ":\n" << text;
      }
    }
    EXPECT_TRUE(lines.count("\"measurements\":" + std::string(indent >= 0 ? " " : "") +
                            doc["columns"]["measurements"].dump() + ","))
        << "the column header on one line:\n" << text;
  }
  // Entry objects expand with a positive indent and stay on one line with -1.
  EXPECT_NE(export_json_text(a, 1).find("\n   \"vendor_id\": 4318"), std::string::npos);
  EXPECT_NE(export_json_text(a, -1).find("\n{\"api_version\":"), std::string::npos);
}

TEST(JsonIo, SmallerThanVersionOne) {
  const json doc = exported();
  const json v1 = v1_document(doc);
  // A measurement row is a fraction of its version 1 object.
  EXPECT_LT(doc["measurements"].dump().size() * 4, v1["measurements"].dump().size());
  EXPECT_LT(doc["coverage"].dump().size() * 4, v1["coverage"].dump().size());
  EXPECT_LT(doc.dump().size(), v1.dump().size());
}

TEST(JsonIo, VersionOneDocumentImportsTheSame) {
  Store a = Store::open_memory();
  testing::populate(a);
  const json v1 = v1_document(export_json(a));
  ASSERT_EQ(v1["version"], 1);
  ASSERT_TRUE(v1["measurements"][0]["device"].contains("pipeline_cache_uuid"));
  Store b = Store::open_memory();
  EXPECT_EQ(import_json_text(b, v1.dump(1), "v1.json"), (ImportStats{2, 2, 2, 1, 5, 2}));
  Store from_v2 = Store::open_memory();
  import_json(from_v2, export_json(a), "v2.json");
  expect_same_store(from_v2, b);
  EXPECT_EQ(export_json_text(b), export_json_text(a));
}

// As vktune wrote version 1 (before the compact rows): every reference a nested object.
constexpr const char* kVersionOneDocument = R"({
 "format": "vktune-db", "version": 1,
 "devices": [{"vendor_id": 4318, "device_id": 9008, "driver_id": 4, "driver_version": 100,
   "pipeline_cache_uuid": "00112233445566778899aabbccddeeff", "name": "Old GPU",
   "driver_version_text": "1.0.100", "driver_info": "old", "api_version": 4206592,
   "device_type": "discrete", "subgroup_size": 32, "properties_json": "{}",
   "copy_bandwidth_gbps": null}],
 "kernels": [
  {"variant_key": "q4gsw_gemv[wg=64]", "source_hash": "h1", "family": "q4gsw_gemv",
   "knobs_json": "{\"wg\":64}", "constraints_json": "{}", "layout": "raw",
   "workgroup_size": 64, "spirv": "AwIjBwAFAQAAAAAAAQAAAAAAAAA="},
  {"variant_key": "q4gsw_gemv[wg=128]", "source_hash": "h1", "family": "q4gsw_gemv",
   "knobs_json": "{\"wg\":128}", "constraints_json": "{}", "layout": "raw",
   "workgroup_size": 128, "spirv": null}],
 "problems": [{"op": "q4gsw", "dtype": "f32", "m": 1, "n": 4096, "k": 4096, "group_size": 32}],
 "runs": [{"uuid": "run-old", "started_at": "2024-01-01T00:00:00Z", "ended_at": null,
   "strategy": "exhaustive", "tool_version": "0.0.9", "host": "old", "cache_mode": "cold"}],
 "measurements": [
  {"run": "run-old",
   "device": {"vendor_id": 4318, "device_id": 9008, "driver_id": 4, "driver_version": 100,
     "pipeline_cache_uuid": "00112233445566778899aabbccddeeff", "name": "Old GPU"},
   "problem": {"op": "q4gsw", "dtype": "f32", "m": 1, "n": 4096, "k": 4096, "group_size": 32},
   "kernel": {"variant_key": "q4gsw_gemv[wg=64]", "source_hash": "h1"},
   "status": "ok", "message": "", "n": 3, "median_ns": 1234.5, "min_ns": 1200.25,
   "p10_ns": null, "p90_ns": null, "max_error": 0.001, "gbps": null, "gflops": null},
  {"run": "run-old",
   "device": {"vendor_id": 4318, "device_id": 9008, "driver_id": 4, "driver_version": 100,
     "pipeline_cache_uuid": "00112233445566778899aabbccddeeff", "name": "Old GPU"},
   "problem": {"op": "q4gsw", "dtype": "f32", "m": 1, "n": 4096, "k": 4096, "group_size": 32},
   "kernel": {"variant_key": "q4gsw_gemv[wg=128]", "source_hash": "h1"},
   "status": "compile_error", "message": "too big", "n": 0, "median_ns": null,
   "min_ns": null, "p10_ns": null, "p90_ns": null, "max_error": null, "gbps": null,
   "gflops": null}],
 "coverage": [
  {"run": "run-old",
   "device": {"vendor_id": 4318, "device_id": 9008, "driver_id": 4, "driver_version": 100,
     "pipeline_cache_uuid": "00112233445566778899aabbccddeeff", "name": "Old GPU"},
   "problem": {"op": "q4gsw", "dtype": "f32", "m": 1, "n": 4096, "k": 4096, "group_size": 32},
   "legal": 2, "measured": 2, "stages": [2], "budget_cut": false}],
 "winners": [
  {"device": {"vendor_id": 4318, "device_id": 9008, "driver_id": 4, "driver_version": 100,
     "pipeline_cache_uuid": "00112233445566778899aabbccddeeff", "name": "Old GPU"},
   "problem": {"op": "q4gsw", "dtype": "f32", "m": 1, "n": 4096, "k": 4096, "group_size": 32},
   "kernel": {"variant_key": "q4gsw_gemv[wg=64]", "source_hash": "h1"},
   "run": "run-old", "median_ns": 1234.5}]
})";

TEST(JsonIo, VersionOneLiteralStillImports) {
  Store s = Store::open_memory();
  EXPECT_EQ(import_json_text(s, kVersionOneDocument, "old.json"), (ImportStats{1, 2, 1, 1, 2, 1}));
  ASSERT_EQ(s.measurements().size(), 2u);
  const Measurement ok = s.measurements()[0];
  EXPECT_EQ(ok.median_ns, 1234.5);
  EXPECT_EQ(ok.min_ns, 1200.25);
  EXPECT_EQ(ok.p10_ns, std::nullopt);
  EXPECT_EQ(ok.n, 3u);
  EXPECT_EQ(s.measurements()[1].status, Status::compile_error);
  EXPECT_EQ(s.measurements()[1].message, "too big");
  EXPECT_EQ(s.runs()[0].ended_at, std::nullopt);
  EXPECT_EQ(s.kernels()[1].spirv, std::nullopt);
  ASSERT_EQ(s.coverage().size(), 1u);
  EXPECT_EQ(s.coverage()[0].stages, std::vector<uint32_t>{2});
  ASSERT_EQ(s.best().size(), 1u);
  EXPECT_EQ(s.best()[0].median_ns, 1234.5);
  // Exported again it is version 2 with the same content (the inverse of v1_document), less the
  // rates, which an export leaves to the import.
  const json again = export_json(s);
  EXPECT_EQ(again["version"], 2);
  json literal = json::parse(kVersionOneDocument);
  for (json& m : literal["measurements"]) {
    m.erase("gbps");
    m.erase("gflops");
  }
  EXPECT_EQ(v1_document(again), literal);
  // The runtime's reader takes it too.
  const Catalog c = catalog_from_json(kVersionOneDocument, "old.json");
  ASSERT_EQ(c.winners.size(), 1u);
  EXPECT_EQ(c.winners[0].kernel_id, 1);
  EXPECT_EQ(c.winners[0].run_id, 1);
  EXPECT_EQ(c.winners[0].median_ns, 1234.5);
}

// A kernel exported before kernels had specialisation constants has no such field: it has none.
TEST(JsonIo, KernelWithoutSpecialisationImportsWithNone) {
  for (json doc : {exported_v1(), exported()}) {
    for (json& k : doc["kernels"]) k.erase("specialization_json");
    Store s = Store::open_memory();
    import_json(s, doc, "old.json");
    ASSERT_EQ(s.kernels().size(), 2u);
    for (const KernelRecord& k : s.kernels()) EXPECT_EQ(k.specialization_json, "[]");
  }
  Store a = Store::open_memory();
  testing::populate(a);
  const json doc = export_json(a);
  EXPECT_FALSE(doc["kernels"][0].contains("specialization_json"));
  EXPECT_EQ(doc["kernels"][1]["specialization_json"], "[[0,128],[1,4]]");
}

// Version 3 exactly where a kernel has specialisation constants: a store without any exports
// version 2, as before they existed, so readers of version 2 still take it.
TEST(JsonIo, VersionThreeOnlyWhereAKernelIsSpecialised) {
  // As exported before kernels had specialisation constants: version 2, no such field.
  json before = exported();
  before["version"] = 2;
  for (json& k : before["kernels"]) k.erase("specialization_json");
  Store plain = Store::open_memory();
  import_json(plain, before, "before.json");
  EXPECT_EQ(catalog_from_json(before.dump(), "before.json").kernels.size(), 2u);
  const json doc = export_json(plain);
  EXPECT_EQ(doc["version"], kJsonUnspecialisedVersion);
  for (const json& k : doc["kernels"]) EXPECT_FALSE(k.contains("specialization_json"));
  Store again = Store::open_memory();
  import_json(again, doc, "plain.json");
  EXPECT_EQ(again.kernels(), plain.kernels());
  // Specialised, it is version 3, and both readers take it with its constants.
  Store specialised = Store::open_memory();
  testing::populate(specialised);
  const json doc3 = export_json(specialised);
  ASSERT_EQ(doc3["version"], 3);
  Store imported = Store::open_memory();
  import_json(imported, doc3, "spec.json");
  EXPECT_EQ(imported.kernels(), specialised.kernels());
  const Catalog c = catalog_from_json(doc3.dump(), "spec.json");
  EXPECT_EQ(c.kernels[1].specialization_json, "[[0,128],[1,4]]");
}

TEST(JsonIo, DocumentWithoutCoverageImports) {
  // As written before schema v3 (version 1) and as a winners-only export (version 2).
  for (json doc : {exported_v1(), exported()}) {
    doc.erase("coverage");
    Store s = Store::open_memory();
    EXPECT_EQ(import_json(s, doc, "old.json"), (ImportStats{2, 2, 2, 1, 5, 0}));
    EXPECT_TRUE(s.coverage().empty());
  }
}

TEST(JsonIo, CoverageMeasuredIsRecountedFromTheMeasurements) {
  json doc = exported();
  cell(doc, "coverage", 0, "measured") = 999;
  json v1 = exported_v1();
  v1["coverage"][0]["measured"] = 999;
  for (const json& d : {doc, v1}) {
    Store s = Store::open_memory();
    import_json(s, d, "edited.json");
    ASSERT_EQ(s.coverage().size(), 2u);
    EXPECT_EQ(s.coverage()[0].measured, 2u);
  }
}

TEST(JsonIo, CatalogFromJsonMatchesStoreCatalog) {
  Store s = Store::open_memory();
  testing::populate(s);
  const Catalog from_db = s.catalog();
  for (const std::string& text : {export_json_text(s), export_json_text(s, -1),
                                  v1_document(export_json(s)).dump()}) {
    const Catalog from_json = catalog_from_json(text, "x.json");
    EXPECT_EQ(from_db.devices, from_json.devices);
    EXPECT_EQ(from_db.kernels, from_json.kernels);
    EXPECT_EQ(from_db.problems, from_json.problems);
    ASSERT_EQ(from_db.winners.size(), from_json.winners.size());
    for (size_t i = 0; i < from_db.winners.size(); ++i) {
      EXPECT_EQ(from_db.winners[i].device_id, from_json.winners[i].device_id);
      EXPECT_EQ(from_db.winners[i].problem_id, from_json.winners[i].problem_id);
      EXPECT_EQ(from_db.winners[i].kernel_id, from_json.winners[i].kernel_id);
      EXPECT_EQ(from_db.winners[i].median_ns, from_json.winners[i].median_ns);
    }
  }
}

TEST(JsonIo, CatalogFromJsonChecksWinnerIndices) {
  json doc = exported();
  cell(doc, "winners", 2, "kernel") = 2;
  try {
    catalog_from_json(doc.dump(), "w.json");
    FAIL() << "accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("w.json: " + cell_path(doc, "winners", 2, "kernel") +
                                         ": kernel index 2 out of range (2 kernels)"),
              std::string::npos)
        << e.what();
  }
  doc = exported();
  doc["columns"].erase("winners");
  EXPECT_THROW(catalog_from_json(doc.dump(), "w.json"), Error);
}

TEST(JsonIo, WinnersOnlyExportReproducesTheWinners) {
  Store a = Store::open_memory();
  testing::populate(a);
  const json doc = export_json(a, ExportScope::winners);
  EXPECT_EQ(doc["version"], kJsonFormatVersion);
  EXPECT_EQ(doc["measurements"].size(), doc["winners"].size());
  // The same winners by natural key (indices differ: the sections hold less).
  EXPECT_EQ(v1_document(doc)["winners"], v1_document(export_json(a))["winners"]);
  EXPECT_LT(doc["measurements"].size(), export_json(a)["measurements"].size());
  EXPECT_FALSE(doc.contains("coverage"));
  EXPECT_FALSE(doc["columns"].contains("coverage"));
  // Every index in range of the smaller sections.
  for (const auto& w : doc["winners"]) {
    EXPECT_LT(w[1].get<size_t>(), doc["problems"].size());
    EXPECT_LT(w[2].get<size_t>(), doc["kernels"].size());
    EXPECT_LT(w[3].get<size_t>(), doc["runs"].size());
  }

  Store b = Store::open_memory();
  import_json_text(b, export_json_text(a, -1, ExportScope::winners), "winners.json");
  // The same winners by natural key: (device name, problem, variant key, median).
  auto winners = [](const Store& s) {
    std::map<int64_t, std::string> kernels, devices;
    std::map<int64_t, Problem> problems;
    for (const auto& k : s.kernels()) kernels[k.id] = k.variant_key;
    for (const auto& d : s.devices()) devices[d.id] = d.name;
    for (const auto& p : s.problems()) problems[p.id] = p;
    std::set<std::string> out;
    for (const auto& w : s.best()) {
      const Problem& p = problems.at(w.problem_id);
      out.insert(devices.at(w.device_id) + "|" + p.op + std::to_string(p.m) + "x" +
                 std::to_string(p.n) + "x" + std::to_string(p.k) + "|" +
                 kernels.at(w.kernel_id) + "|" + std::to_string(w.median_ns));
    }
    return out;
  };
  EXPECT_EQ(winners(a), winners(b));
  EXPECT_FALSE(winners(a).empty());
}

}  // namespace
}  // namespace vktune::db
