// JSON export/import: loss-free round trip and field-by-field validation with paths.
#include "db/json_io.h"

#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "db/error.h"
#include "tests/db/fixtures.h"

namespace vktune::db {
namespace {

using nlohmann::json;

json exported() {
  Store s = Store::open_memory();
  testing::populate(s);
  return export_json(s);
}

// Imports `doc` into a fresh store expecting an Error containing every needle.
void expect_rejected(const json& doc, std::initializer_list<const char*> needles) {
  Store s = Store::open_memory();
  try {
    import_json(s, doc, "doc.json");
    FAIL() << "accepted " << doc.dump().substr(0, 200);
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("doc.json"), std::string::npos) << what;
    for (const char* n : needles) EXPECT_NE(what.find(n), std::string::npos) << what;
  }
  EXPECT_TRUE(s.devices().empty()) << "a rejected document must not be half-imported";
}

TEST(JsonIo, DocumentHasFormatVersionAndSections) {
  const json doc = exported();
  EXPECT_EQ(doc["format"], "vktune-db");
  EXPECT_EQ(doc["version"], kJsonFormatVersion);
  EXPECT_EQ(doc["devices"].size(), 2u);
  EXPECT_EQ(doc["measurements"].size(), 5u);
  EXPECT_EQ(doc["winners"].size(), 3u);
  // Natural keys, not row ids.
  EXPECT_TRUE(doc["measurements"][0]["device"].contains("pipeline_cache_uuid"));
  ASSERT_EQ(doc["coverage"].size(), 2u);
  EXPECT_EQ(doc["coverage"][0]["run"], "run-a");
  EXPECT_EQ(doc["coverage"][0]["problem"]["m"], 1);
  EXPECT_EQ(doc["coverage"][0]["legal"], 2);
  EXPECT_EQ(doc["coverage"][0]["measured"], 2);
  EXPECT_EQ(doc["coverage"][0]["stages"], json({2, 1}));
  EXPECT_EQ(doc["coverage"][1]["budget_cut"], true);
  EXPECT_EQ(doc["kernels"][0]["spirv"], "AwIjBwD/");
}

TEST(JsonIo, RoundTripIsLossFree) {
  Store a = Store::open_memory();
  testing::populate(a);
  const std::string text = export_json_text(a);
  Store b = Store::open_memory();
  const ImportStats added = import_json_text(b, text, "a.json");
  EXPECT_EQ(added, (ImportStats{2, 2, 2, 1, 5, 2}));
  EXPECT_EQ(a.devices(), b.devices());
  EXPECT_EQ(a.kernels(), b.kernels());
  EXPECT_EQ(a.problems(), b.problems());
  EXPECT_EQ(a.runs(), b.runs());
  EXPECT_EQ(a.measurements(), b.measurements());
  EXPECT_EQ(a.best(), b.best());
  EXPECT_EQ(a.coverage(), b.coverage());
  EXPECT_EQ(export_json_text(b), text);
}

TEST(JsonIo, DocumentWithoutCoverageImports) {
  // As written before schema v3.
  json doc = exported();
  doc.erase("coverage");
  Store s = Store::open_memory();
  EXPECT_EQ(import_json(s, doc, "old.json"), (ImportStats{2, 2, 2, 1, 5, 0}));
  EXPECT_TRUE(s.coverage().empty());
}

TEST(JsonIo, CoverageMeasuredIsRecountedFromTheMeasurements) {
  json doc = exported();
  doc["coverage"][0]["measured"] = 999;
  Store s = Store::open_memory();
  import_json(s, doc, "edited.json");
  ASSERT_EQ(s.coverage().size(), 2u);
  EXPECT_EQ(s.coverage()[0].measured, 2u);
}

TEST(JsonIo, CatalogFromJsonMatchesStoreCatalog) {
  Store s = Store::open_memory();
  testing::populate(s);
  const Catalog from_db = s.catalog();
  const Catalog from_json = catalog_from_json(export_json_text(s), "x.json");
  EXPECT_EQ(from_db.devices, from_json.devices);
  EXPECT_EQ(from_db.kernels, from_json.kernels);
  EXPECT_EQ(from_db.problems, from_json.problems);
  ASSERT_EQ(from_db.winners.size(), from_json.winners.size());
  for (size_t i = 0; i < from_db.winners.size(); ++i) {
    EXPECT_EQ(from_db.winners[i].kernel_id, from_json.winners[i].kernel_id);
    EXPECT_EQ(from_db.winners[i].median_ns, from_json.winners[i].median_ns);
  }
}

TEST(JsonIo, WinnersOnlyExportReproducesTheWinners) {
  Store a = Store::open_memory();
  testing::populate(a);
  const json doc = export_json(a, ExportScope::winners);
  EXPECT_EQ(doc["measurements"].size(), doc["winners"].size());
  EXPECT_EQ(doc["winners"], export_json(a)["winners"]);
  EXPECT_LT(doc["measurements"].size(), export_json(a)["measurements"].size());
  EXPECT_FALSE(doc.contains("coverage"));

  Store b = Store::open_memory();
  import_json(b, doc, "winners.json");
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

TEST(JsonIo, MissingFieldsAreNamedByPath) {
  json doc = exported();
  doc["devices"][1].erase("vendor_id");
  expect_rejected(doc, {"devices[1].vendor_id", "missing"});
  doc = exported();
  doc["measurements"][2]["kernel"].erase("source_hash");
  expect_rejected(doc, {"measurements[2].kernel.source_hash", "missing"});
  doc = exported();
  doc.erase("runs");
  expect_rejected(doc, {"runs", "missing"});
}

TEST(JsonIo, WrongTypesAreNamedByPath) {
  json doc = exported();
  doc["problems"][0]["m"] = "one";
  expect_rejected(doc, {"problems[0].m", "unsigned 32-bit integer"});
  doc = exported();
  doc["problems"][0]["k"] = -4;
  expect_rejected(doc, {"problems[0].k", "unsigned"});
  doc = exported();
  doc["measurements"][0]["median_ns"] = "fast";
  expect_rejected(doc, {"measurements[0].median_ns", "expected a number"});
  doc = exported();
  doc["kernels"][0]["spirv"] = "not base64!";
  expect_rejected(doc, {"kernels[0].spirv", "base64"});
  doc = exported();
  doc["kernels"][0]["knobs_json"] = "{broken";
  expect_rejected(doc, {"kernels[0].knobs_json", "not valid JSON"});
  doc = exported();
  doc["measurements"][0]["status"] = "great";
  expect_rejected(doc, {"measurements[0].status"});
  doc = exported();
  doc["devices"] = json::object();
  expect_rejected(doc, {"devices", "expected an array"});
  doc = exported();
  doc["coverage"][1]["budget_cut"] = 1;
  expect_rejected(doc, {"coverage[1].budget_cut", "expected true or false"});
  doc = exported();
  doc["coverage"][0]["stages"][1] = -1;
  expect_rejected(doc, {"coverage[0].stages[1]", "unsigned"});
  doc = exported();
  doc["coverage"][0]["stages"] = "2>1";
  expect_rejected(doc, {"coverage[0].stages", "expected an array"});
  doc = exported();
  doc["coverage"][0].erase("legal");
  expect_rejected(doc, {"coverage[0].legal", "missing"});
}

TEST(JsonIo, DanglingReferencesAreRejected) {
  json doc = exported();
  doc["measurements"][0]["problem"]["m"] = 77;
  expect_rejected(doc, {"measurements[0].problem", "missing from 'problems'"});
  doc = exported();
  doc["measurements"][0]["run"] = "nope";
  expect_rejected(doc, {"measurements[0].run"});
  doc = exported();
  doc["coverage"][1]["run"] = "nope";
  expect_rejected(doc, {"coverage[1].run", "missing from 'runs'"});
}

TEST(JsonIo, HeaderIsChecked) {
  json doc = exported();
  doc["version"] = 99;
  expect_rejected(doc, {"document.version", "99"});
  doc = exported();
  doc["format"] = "something-else";
  expect_rejected(doc, {"document.format"});
  expect_rejected(json::array(), {"expected an object"});
  Store s = Store::open_memory();
  EXPECT_THROW(import_json_text(s, "{\"format\": ", "cut.json"), Error);
}

TEST(JsonIo, ValueErrorsInsideRecordsAreRejectedWholesale) {
  json doc = exported();
  doc["devices"][0]["device_type"] = "gpu";
  expect_rejected(doc, {"devices[0]", "device_type"});
}

}  // namespace
}  // namespace vktune::db
