// JSON import refuses what cannot be: missing fields, wrong types, indices out of range,
// dangling references, bad headers, impossible timings, each named by its path, and nothing of
// a refused document is imported.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <span>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "db/base64.h"
#include "db/json_io.h"
#include "tests/db/json_documents.h"

namespace vktune::db {
namespace {

using nlohmann::json;
using testing::cell;
using testing::cell_path;
using testing::expect_rejected;
using testing::exported;
using testing::exported_v1;

TEST(JsonIo, MissingFieldsAreNamedByPath) {
  for (const json& original : {exported(), exported_v1()}) {
    json doc = original;
    doc["devices"][1].erase("vendor_id");
    expect_rejected(doc, {"devices[1].vendor_id", "missing"});
    doc = original;
    doc.erase("runs");
    expect_rejected(doc, {"runs", "missing"});
    doc = original;
    doc["runs"][0].erase("uuid");
    expect_rejected(doc, {"runs[0].uuid", "missing"});
  }
  json doc = exported_v1();
  doc["measurements"][2]["kernel"].erase("source_hash");
  expect_rejected(doc, {"measurements[2].kernel.source_hash", "missing"});
  // Version 2: rows are complete arrays under a header naming their columns.
  doc = exported();
  doc["measurements"][2].erase(11);
  expect_rejected(doc, {"measurements[2]: expected an array of 12 values", "got an array of 11"});
  doc = exported();
  doc["coverage"][1] = json::object();
  expect_rejected(doc, {"coverage[1]: expected an array of 7 values", "got object"});
  doc = exported();
  doc.erase("columns");
  expect_rejected(doc, {"document.columns", "missing"});
  doc = exported();
  doc["columns"].erase("coverage");
  expect_rejected(doc, {"columns.coverage", "missing"});
  doc = exported();
  std::swap(doc["columns"]["measurements"][6], doc["columns"]["measurements"][7]);
  // The header names one of the two column sets a version 2 document may have.
  expect_rejected(doc, {"columns.measurements", "expected [\"run\",\"device\"",
                        "\"max_error\",\"message\"] or [", "\"gbps\",\"gflops\""});
}

TEST(JsonIo, WrongTypesAreNamedByPath) {
  for (const json& original : {exported(), exported_v1()}) {
    json doc = original;
    doc["problems"][0]["m"] = "one";
    expect_rejected(doc, {"problems[0].m", "unsigned 32-bit integer"});
    doc = original;
    doc["problems"][0]["k"] = -4;
    expect_rejected(doc, {"problems[0].k", "unsigned"});
    doc = original;
    doc["kernels"][0]["spirv"] = "not base64!";
    expect_rejected(doc, {"kernels[0].spirv", "base64"});
    doc = original;
    doc["kernels"][0]["knobs_json"] = "{broken";
    expect_rejected(doc, {"kernels[0].knobs_json", "not valid JSON"});
    doc = original;
    doc["devices"] = json::object();
    expect_rejected(doc, {"devices", "expected an array"});
    doc = original;
    doc["measurements"] = "none";
    expect_rejected(doc, {"measurements", "expected an array"});
  }
  // Version 1 rows are objects.
  json doc = exported_v1();
  doc["measurements"][0]["median_ns"] = "fast";
  expect_rejected(doc, {"measurements[0].median_ns", "expected a number"});
  doc = exported_v1();
  doc["measurements"][0]["status"] = "great";
  expect_rejected(doc, {"measurements[0].status"});
  doc = exported_v1();
  doc["coverage"][1]["budget_cut"] = 1;
  expect_rejected(doc, {"coverage[1].budget_cut", "expected true or false"});
  doc = exported_v1();
  doc["coverage"][0]["stages"][1] = -1;
  expect_rejected(doc, {"coverage[0].stages[1]", "unsigned"});
  doc = exported_v1();
  doc["coverage"][0]["stages"] = "2>1";
  expect_rejected(doc, {"coverage[0].stages", "expected an array"});
  doc = exported_v1();
  doc["coverage"][0].erase("legal");
  expect_rejected(doc, {"coverage[0].legal", "missing"});
  // Version 2 rows are arrays: errors name the cell and its column.
  const json v2 = exported();
  auto rejected_cell = [&](const char* section, size_t row, const char* name, json value,
                           const std::string& what) {
    json d = v2;
    cell(d, section, row, name) = std::move(value);
    expect_rejected(d, {cell_path(d, section, row, name) + ": " + what});
  };
  rejected_cell("measurements", 0, "median_ns", "fast", "median_ns: expected a number, got string");
  rejected_cell("measurements", 0, "median_ns", nullptr, "median_ns: null for an ok result");
  rejected_cell("measurements", 0, "status", "great", "status: \"great\" is not a known status");
  rejected_cell("measurements", 0, "status", 0, "status: expected a string, got number");
  rejected_cell("measurements", 3, "n", -1, "n: expected an unsigned 32-bit integer, got -1");
  rejected_cell("measurements", 3, "n", 1.5, "n: expected an unsigned 32-bit integer, got 1.5");
  rejected_cell("measurements", 1, "max_error", "fast", "max_error: expected a number, got string");
  rejected_cell("measurements", 1, "message", nullptr, "message: expected a string, got null");
  rejected_cell("measurements", 1, "kernel", "0", "kernel: expected an index into 'kernels', got string");
  rejected_cell("measurements", 1, "run", -1, "run: expected an index into 'runs', got -1");
  rejected_cell("measurements", 1, "device", 0.0, "device: expected an index into 'devices', got 0.0");
  rejected_cell("measurements", 1, "problem", nullptr, "problem: expected an index into 'problems', got null");
  rejected_cell("coverage", 1, "budget_cut", 1, "budget_cut: expected true or false, got number");
  rejected_cell("coverage", 0, "stages", "2>1", "stages: expected an array, got string");
  rejected_cell("coverage", 0, "legal", nullptr, "legal: expected an unsigned 32-bit integer, got null");
  rejected_cell("winners", 0, "median_ns", nullptr, "median_ns: expected a number, got null");
  json d = v2;
  cell(d, "coverage", 0, "stages")[1] = -1;
  expect_rejected(d, {cell_path(d, "coverage", 0, "stages") + "[1]: stages: expected an unsigned"});
}

TEST(JsonIo, IndicesOutOfRangeAreRejected) {
  const json v2 = exported();
  auto rejected_index = [&](const char* section, size_t row, const char* name, int value,
                            const std::string& what) {
    json d = v2;
    cell(d, section, row, name) = value;
    expect_rejected(d, {cell_path(d, section, row, name) + ": " + what});
  };
  rejected_index("measurements", 1, "problem", 999, "problem index 999 out of range (2 problems)");
  rejected_index("measurements", 4, "kernel", 2, "kernel index 2 out of range (2 kernels)");
  rejected_index("measurements", 0, "device", 2, "device index 2 out of range (2 devices)");
  rejected_index("measurements", 0, "run", 1, "run index 1 out of range (1 run)");
  rejected_index("coverage", 1, "run", 5, "run index 5 out of range (1 run)");
  rejected_index("coverage", 0, "problem", 2, "problem index 2 out of range (2 problems)");
  rejected_index("winners", 2, "kernel", 7, "kernel index 7 out of range (2 kernels)");
  rejected_index("winners", 0, "device", 3, "device index 3 out of range (2 devices)");
  // Against the document's own sections, not the database's rows.
  json d = v2;
  d["problems"].erase(1);
  expect_rejected(d, {"problem index 1 out of range (1 problem)"});
}

TEST(JsonIo, DanglingReferencesAreRejected) {
  // Version 1 refers by natural key.
  json doc = exported_v1();
  doc["measurements"][0]["problem"]["m"] = 77;
  expect_rejected(doc, {"measurements[0].problem", "missing from 'problems'"});
  doc = exported_v1();
  doc["measurements"][0]["run"] = "nope";
  expect_rejected(doc, {"measurements[0].run"});
  doc = exported_v1();
  doc["measurements"][3]["kernel"]["source_hash"] = "other";
  expect_rejected(doc, {"measurements[3].kernel", "missing from 'kernels'"});
  doc = exported_v1();
  doc["coverage"][1]["run"] = "nope";
  expect_rejected(doc, {"coverage[1].run", "missing from 'runs'"});
}

TEST(JsonIo, HeaderIsChecked) {
  for (const json& original : {exported(), exported_v1()}) {
    json doc = original;
    doc["version"] = 99;
    expect_rejected(doc, {"document.version", "99", "reads 1 to 3"});
    doc["version"] = 0;
    expect_rejected(doc, {"document.version", "0 is not supported"});
    doc = original;
    doc["format"] = "something-else";
    expect_rejected(doc, {"document.format"});
  }
  // A version 2 document labelled version 1 reads as a broken version 1 one.
  json doc = exported();
  doc["version"] = 1;
  expect_rejected(doc, {"measurements[0]", "expected an object, got array"});
  expect_rejected(json::array(), {"expected an object"});
  Store s = Store::open_memory();
  EXPECT_THROW(import_json_text(s, "{\"format\": ", "cut.json"), Error);
}

// Timings that cannot be are refused by the path of the value: negative or non-finite ones (an
// export writes a non-finite value as null, so only a hand-made document holds one), and
// quantiles out of order.
TEST(JsonIo, ImpossibleTimingsAreRejectedByPath) {
  for (const json& original : {exported(), exported_v1()}) {
    const bool v1 = original["version"] == 1;
    const auto value = [&](json& doc, const std::string& name) -> json& {
      return v1 ? doc["measurements"][0][name] : cell(doc, "measurements", 0, name);
    };
    const auto path = [&](const json& doc, const std::string& name) {
      return v1 ? "measurements[0]." + name : cell_path(doc, "measurements", 0, name);
    };
    json doc = original;
    value(doc, "median_ns") = -5.0;
    expect_rejected(doc, {path(doc, "median_ns"), "finite and >= 0"});
    doc = original;
    value(doc, "p90_ns") = std::numeric_limits<double>::infinity();
    expect_rejected(doc, {path(doc, "p90_ns"), "finite and >= 0"});
    doc = original;
    value(doc, "p10_ns") = value(doc, "median_ns").get<double>() * 2;
    expect_rejected(doc, {path(doc, "median_ns"), "below p10_ns", "min_ns <= p10_ns"});
    doc = original;
    value(doc, "min_ns") = value(doc, "median_ns").get<double>() + 1;
    value(doc, "p10_ns") = nullptr;
    expect_rejected(doc, {path(doc, "median_ns"), "below min_ns"});
  }
}

TEST(JsonIo, ValueErrorsInsideRecordsAreRejectedWholesale) {
  for (json doc : {exported(), exported_v1()}) {
    doc["devices"][0]["device_type"] = "gpu";
    expect_rejected(doc, {"devices[0]", "device_type"});
  }
}

// What the runtime could not run is refused at import, by path, rather than stored and served:
// SPIR-V that is no module (1, 5 or 6 bytes, a bare 16, a wrong magic), a workgroup of 0
// invocations, a multiple of 0.
TEST(JsonIo, KernelsTheRuntimeCannotRunAreRejectedByPath) {
  const auto spirv = [](std::vector<uint8_t> bytes) { return json(base64_encode(bytes)); };
  const std::vector<uint8_t> header{0x03, 0x02, 0x23, 0x07, 0, 5, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0};
  for (const json& original : {exported(), exported_v1()}) {
    json doc = original;
    for (const auto& [bytes, why] :
         std::vector<std::pair<std::vector<uint8_t>, std::string>>{
             {{0x03}, "is 1 bytes, not whole 32-bit words"},
             {{0x03, 0x02, 0x23, 0x07, 0x00}, "is 5 bytes, not whole 32-bit words"},
             {{0x03, 0x02, 0x23, 0x07, 0x00, 0xff}, "is 6 bytes"},
             {{0x03, 0x02, 0x23, 0x07, 0, 5, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0}, "shorter than a SPIR-V header"},
             {std::vector<uint8_t>(20, 0), "starts with 0x00000000, not the SPIR-V magic number"}}) {
      doc = original;
      doc["kernels"][1]["spirv"] = spirv(bytes);
      expect_rejected(doc, {"kernels[1].spirv", why});
    }
    doc = original;
    doc["kernels"][1]["spirv"] = spirv(header);
    db::Store store = db::Store::open_memory();
    EXPECT_NO_THROW(import_json(store, doc, "doc.json")) << "a bare header is a module";
    doc = original;
    doc["kernels"][0]["workgroup_size"] = 0;
    expect_rejected(doc, {"kernels[0].workgroup_size", "is 0"});
    doc = original;
    doc["kernels"][0]["constraints_json"] = R"({"k_multiple":0,"m_min":0})";
    expect_rejected(doc, {"kernels[0].constraints_json.k_multiple", "is 0; a multiple is at least 1"});
    doc = original;
    doc["kernels"][0]["constraints_json"] = "[1]";
    expect_rejected(doc, {"kernels[0].constraints_json", "is not a JSON object"});
    for (const auto& [text, why] : std::vector<std::pair<std::string, std::string>>{
             {"{}", "kernels[0].specialization_json: is not a JSON array"},
             {"[[0]]", "kernels[0].specialization_json[0]: expected a [constant_id, value] pair"},
             {"[[0,-1]]", "kernels[0].specialization_json[0].value: expected an unsigned"},
             {"[[1,64],[1,4]]", "kernels[0].specialization_json[1]: constant_id 1 is not above"}}) {
      doc = original;
      doc["kernels"][0]["specialization_json"] = text;
      expect_rejected(doc, {why.substr(0, why.find(": ")), why.substr(why.find(": ") + 2)});
    }
  }
}

// The caller's problem check (the catalogue's, in the CLI) refuses a row by its path.
TEST(JsonIo, ProblemsTheCheckRefusesAreRejectedByPath) {
  const ProblemCheck no_bogus = [](const Problem& p) {
    return p.op == "bogus" ? "op \"bogus\" is unknown" : std::string();
  };
  for (json doc : {exported(), exported_v1()}) {
    db::Store store = db::Store::open_memory();
    EXPECT_NO_THROW(import_json(store, doc, "doc.json", {no_bogus}));
    doc["problems"][1]["op"] = "bogus";
    db::Store empty = db::Store::open_memory();
    try {
      import_json(empty, doc, "doc.json", {no_bogus});
      ADD_FAILURE() << "accepted op bogus";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("doc.json: problems[1]: op \"bogus\" is unknown"),
                std::string::npos)
          << e.what();
    }
    EXPECT_TRUE(empty.devices().empty());
  }
}

// The caller's SPIR-V check (SPIRV-Tools' validator, in the CLI) sees each module that passes
// the header checks, and refuses one by its path; a module the header checks refuse never
// reaches it.
TEST(JsonIo, ModulesTheSpirvCheckRefusesAreRejectedByPath) {
  const std::vector<uint8_t> header{0x03, 0x02, 0x23, 0x07, 0, 5, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0};
  const std::vector<uint8_t> zeros(20, 0);
  std::vector<std::vector<uint8_t>> seen;
  const ImportChecks checks{{}, [&](std::span<const uint8_t> bytes) {
                              seen.emplace_back(bytes.begin(), bytes.end());
                              return seen.back() == header ? "has no entry point" : std::string();
                            }};
  for (json doc : {exported(), exported_v1()}) {
    doc["kernels"][1]["spirv"] = base64_encode(header);
    db::Store store = db::Store::open_memory();
    seen.clear();
    try {
      import_json(store, doc, "doc.json", checks);
      ADD_FAILURE() << "accepted a module the check refuses";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("doc.json: kernels[1].spirv: has no entry point"),
                std::string::npos)
          << e.what();
    }
    EXPECT_EQ(std::count(seen.begin(), seen.end(), header), 1);
    EXPECT_TRUE(store.devices().empty());
    doc["kernels"][1]["spirv"] = base64_encode(zeros);
    seen.clear();
    EXPECT_THROW(catalog_from_json(doc.dump(), "doc.json", checks), Error);
    EXPECT_EQ(std::count(seen.begin(), seen.end(), zeros), 0) << "the header checks come first";
  }
}

}  // namespace
}  // namespace vktune::db
