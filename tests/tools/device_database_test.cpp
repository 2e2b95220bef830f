// Which database of a folder holds a device (`vktune tune --train-db DIR`).
#include "tools/report/device_database.h"

#include <gtest/gtest.h>

#include <fstream>

#include "tests/tools/report_fixture.h"
#include "tools/report/db_tools.h"
#include "tools/report/report.h"

namespace vktune::report {
namespace {

using namespace vktune::testing;

TEST(DeviceDatabase, NamesTheDevicesOfADatabaseAndOfItsExport) {
  TempDir dir;
  {
    db::Store s = db::Store::open(dir.file("a.db"));
    build_synthetic(s);
  }
  export_database(dir.file("a.db"), dir.file("a.json"));
  const std::vector<std::string> expected = {kDevice1Name, kDevice2Name};
  EXPECT_EQ(recorded_devices(dir.file("a.db")), expected);
  EXPECT_EQ(recorded_devices(dir.file("a.json")), expected);
}

TEST(DeviceDatabase, AFolderAnswersWithTheDatabaseRecordedOnTheDevice) {
  TempDir dir;
  {
    db::Store s = db::Store::open(dir.file("b.db"));
    s.upsert_device(synthetic_device(0x1234, "Other GPU"));
  }
  {
    db::Store s = db::Store::open(dir.file("tmp.db"));
    build_synthetic(s);
  }
  export_database(dir.file("tmp.db"), dir.file("shipped.json"));
  // A winners file of the same device sorts first but holds nothing to learn from.
  export_database(dir.file("tmp.db"), dir.file("a.winners.json"));
  std::filesystem::remove(dir.file("tmp.db"));

  EXPECT_EQ(database_of_device(dir.file(""), "Other GPU"), dir.file("b.db"));
  EXPECT_EQ(database_of_device(dir.file(""), kDevice1Name), dir.file("shipped.json"));
  EXPECT_EQ(database_of_device(dir.file(""), "Unknown GPU"), std::nullopt);
}

TEST(DeviceDatabase, ADocumentWithoutDevicesIsRefusedByName) {
  TempDir dir;
  std::ofstream(dir.file("shapes.json")) << R"({"problems": [{"op": "q4gsw", "n": 64}]})";
  std::ofstream(dir.file("cut.json")) << R"({"coverage": [], "devices": [{"name": "X")";
  for (const char* name : {"shapes.json", "cut.json"}) {
    try {
      recorded_devices(dir.file(name));
      ADD_FAILURE() << name << " was accepted";
    } catch (const ReportError& e) {
      EXPECT_NE(std::string(e.what()).find(name), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace vktune::report
