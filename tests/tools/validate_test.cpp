// --validate, before or after the subcommand, and VKTUNE_VALIDATION=1 turn the validation layer
// on for a command, which says so on stderr; without either it stays off. (The messages'
// printing itself: tests/kernels/vk_instance_test.cpp.)
#include <gtest/gtest.h>

#include <string>
#include <utility>

#include "tests/tools/run_vktune.h"

namespace vktune::testing {
namespace {

constexpr const char* kOn = "Vulkan validation layer on";
// ctest runs this under VKTUNE_VALIDATION=1; each case sets the environment it needs.
constexpr const char* kNoEnv = "env -u VKTUNE_VALIDATION";

TEST(VktuneValidate, FlagOrEnvironmentTurnsTheLayerOn) {
  for (const auto& [args, runner] :
       {std::pair<std::string, std::string>{"--validate devices", kNoEnv},
        {"devices --validate", kNoEnv},
        {"devices", "env VKTUNE_VALIDATION=1"}}) {
    const VktuneResult r = vktune(args, runner);
    EXPECT_EQ(r.exit_code, 0) << args << "\n" << r.output;
    EXPECT_NE(r.output.find(kOn), std::string::npos) << runner << " " << args << "\n" << r.output;
  }
  const VktuneResult off = vktune("devices", kNoEnv);
  EXPECT_EQ(off.exit_code, 0) << off.output;
  EXPECT_EQ(off.output.find(kOn), std::string::npos) << off.output;
}

}  // namespace
}  // namespace vktune::testing
