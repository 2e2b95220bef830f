// `vktune tune` on shapes past the device's buffer limits: refused up front with the limit in
// readable units, before the database is even created (on main such shapes reached
// std::bad_alloc after the run and problem rows were written).
#include <gtest/gtest.h>

#include <filesystem>
#include <regex>
#include <string>

#include "tests/temp_dir.h"
#include "tests/tools/run_vktune.h"

namespace vktune::testing {
namespace {

TEST(VktuneTuneLimits, HugeShapesAreRefusedBeforeAnythingIsWritten) {
  TempDir dir;
  for (const std::string& shape : {std::string("--ops rms_norm --m 4294967295"),
                                   std::string("--ops q4gsw --m 2147483648 --gs 32")}) {
    const std::string db = dir.file("huge.db");
    const VktuneResult r = vktune("tune --shapes smoke --plain " + shape + " --db " + quoted(db));
    EXPECT_EQ(r.exit_code, 1) << shape << "\n" << r.output;
    EXPECT_NE(r.output.find("maxStorageBufferRange"), std::string::npos) << r.output;
    EXPECT_TRUE(std::regex_search(r.output, std::regex("buffer is [0-9.]+ [KMGTPE]iB")))
        << r.output;
    EXPECT_FALSE(std::regex_search(r.output, std::regex("[0-9]{11,}"))) << r.output;
    EXPECT_FALSE(std::filesystem::exists(db)) << shape;
  }
}

}  // namespace
}  // namespace vktune::testing
