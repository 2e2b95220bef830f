// Which database of a folder holds a device, or its kin (`vktune tune --train-db DIR`).
#include "db/device_database.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "db/error.h"
#include "db/ops/db_tools.h"
#include "tests/tools/report_fixture.h"

namespace vktune::db {
namespace {

using namespace vktune::testing;

TEST(DeviceDatabase, NamesTheDevicesOfADatabaseAndOfItsExport) {
  TempDir dir;
  {
    db::Store s = db::Store::open(dir.file("a.db"));
    build_synthetic(s);
  }
  db::ops::export_database(dir.file("a.db"), dir.file("a.json"));
  const std::vector<RecordedDevice> expected = {{kDevice1Name, 0x10de, "discrete"},
                                                {kDevice2Name, 0x10de, "discrete"}};
  EXPECT_EQ(recorded_devices(dir.file("a.db")), expected);
  EXPECT_EQ(recorded_devices(dir.file("a.json")), expected);
}

// A folder of databases: b.db (Other GPU, an integrated one), shipped.json (the synthetic
// database's two discrete GPUs, fully), probe.json (the first of them, with nothing measured) and
// a winners file of the synthetic database.
class DeviceDatabaseFolder : public ::testing::Test {
 protected:
  void SetUp() override {
    {
      db::DeviceRecord other = synthetic_device(0x1234, "Other GPU");
      other.device_type = "integrated";
      db::Store s = db::Store::open(dir.file("b.db"));
      s.upsert_device(other);
    }
    {
      db::Store s = db::Store::open(dir.file("tmp.db"));
      build_synthetic(s);
      db::Store probe = db::Store::open(dir.file("probe.db"));
      probe.upsert_device(s.devices().front());
    }
    db::ops::export_database(dir.file("tmp.db"), dir.file("shipped.json"));
    db::ops::export_database(dir.file("probe.db"), dir.file("probe.json"));
    // A winners file of the same devices sorts first but holds nothing to learn from.
    db::ops::export_database(dir.file("tmp.db"), dir.file("a.winners.json"));
    std::filesystem::remove(dir.file("tmp.db"));
    std::filesystem::remove(dir.file("probe.db"));
  }
  std::optional<DeviceDatabase> find(const std::string& name, uint32_t vendor,
                                     const std::string& type) {
    return database_of_device(dir.file(""), {name, vendor, type});
  }
  TempDir dir;
};

TEST_F(DeviceDatabaseFolder, AnswersWithTheLargestDatabaseRecordedOnTheDevice) {
  const std::optional<DeviceDatabase> other = find("Other GPU", 0x10de, "integrated");
  ASSERT_TRUE(other);
  EXPECT_EQ(other->path, dir.file("b.db"));
  EXPECT_EQ(other->device, "Other GPU");
  EXPECT_FALSE(other->kin);
  // probe.json holds the device too, and sorts after shipped.json: size decides, not the name.
  ASSERT_GT(std::filesystem::file_size(dir.file("shipped.json")),
            std::filesystem::file_size(dir.file("probe.json")));
  std::filesystem::rename(dir.file("shipped.json"), dir.file("z.json"));
  const std::optional<DeviceDatabase> one = find(kDevice1Name, 0x10de, "discrete");
  ASSERT_TRUE(one);
  EXPECT_EQ(one->path, dir.file("z.json"));
  EXPECT_EQ(one->device, kDevice1Name);
  EXPECT_FALSE(one->kin);
}

TEST_F(DeviceDatabaseFolder, ADeviceNobodyTunedGetsItsKinsDatabase) {
  // The same vendor and type: the first kin the databases name, in file order (b.db's is
  // integrated; probe.json's the first discrete one), then its largest database.
  const std::optional<DeviceDatabase> kin = find("Unknown GPU", 0x10de, "discrete");
  ASSERT_TRUE(kin);
  EXPECT_EQ(kin->path, dir.file("shipped.json"));
  EXPECT_EQ(kin->device, kDevice1Name);
  EXPECT_TRUE(kin->kin);
  EXPECT_EQ(find("Unknown iGPU", 0x10de, "integrated")->device, "Other GPU");
  // Another vendor, or a type nobody recorded, has no kin here.
  EXPECT_FALSE(find("Unknown GPU", 0x1002, "discrete"));
  EXPECT_FALSE(find("Unknown GPU", 0x10de, "cpu"));
}

TEST_F(DeviceDatabaseFolder, AFileIsTheOneDatabaseConsidered) {
  EXPECT_EQ(database_of_device(dir.file("b.db"), {"Other GPU", 0x10de, "integrated"})->path,
            dir.file("b.db"));
  const std::optional<DeviceDatabase> kin =
      database_of_device(dir.file("probe.json"), {"Unknown GPU", 0x10de, "discrete"});
  ASSERT_TRUE(kin);
  EXPECT_EQ(kin->path, dir.file("probe.json"));
  EXPECT_TRUE(kin->kin);
  EXPECT_FALSE(database_of_device(dir.file("b.db"), {"Unknown GPU", 0x10de, "discrete"}));
}

TEST(DeviceDatabase, ADocumentWithoutDevicesIsRefusedByName) {
  TempDir dir;
  std::ofstream(dir.file("shapes.json")) << R"({"problems": [{"op": "q4gsw", "n": 64}]})";
  std::ofstream(dir.file("cut.json")) << R"({"coverage": [], "devices": [{"name": "X")";
  for (const char* name : {"shapes.json", "cut.json"}) {
    try {
      recorded_devices(dir.file(name));
      ADD_FAILURE() << name << " was accepted";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(name), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace vktune::db
