// `vktune devices` says which families a device cannot run, and why: q4gsw_gemv_i8dot, whose
// module only the newer compiler builds and which every build has prebuilt, only on a device
// without shaderIntegerDotProduct; and which GLSL extensions the linked compiler accepts (all
// with the newer one, VKTUNE_NEWER_SHADERC=1, none with Debian 12's) and the prebuilt modules
// cover (all).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "tests/tools/run_vktune.h"

namespace vktune::testing {
namespace {

TEST(VktuneDevices, UnavailableFamiliesAndTheCompiler) {
  const VktuneResult r = vktune("devices --json", "", "2>/dev/null");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const nlohmann::json doc = nlohmann::json::parse(r.output);
  for (const char* name :
       {"GL_EXT_integer_dot_product", "GL_KHR_cooperative_matrix", "GL_NV_cooperative_matrix2"}) {
    EXPECT_EQ(doc["compiler"]["accepts"][name], bool(VKTUNE_NEWER_SHADERC)) << name;
    EXPECT_EQ(doc["compiler"]["prebuilt"][name], true) << name;
  }
  for (const nlohmann::json& d : doc["devices"]) {
    const nlohmann::json& unavailable = d["unavailable_families"];
    const bool dot = d["features"]["shader_integer_dot_product"];
    if (!dot) {
      ASSERT_TRUE(unavailable.contains("q4gsw_gemv_i8dot")) << d["name"];
      EXPECT_NE(unavailable["q4gsw_gemv_i8dot"].get<std::string>().find("shaderIntegerDotProduct"),
                std::string::npos);
    } else {
      EXPECT_FALSE(unavailable.contains("q4gsw_gemv_i8dot")) << d["name"];
    }
    EXPECT_FALSE(unavailable.contains("q4gsw_gemv_fast")) << d["name"];
  }
  // The table says the same in words.
  const VktuneResult table = vktune("devices", "", "2>/dev/null");
  ASSERT_EQ(table.exit_code, 0);
  EXPECT_NE(table.output.find(std::string("shader compiler (linked): GL_EXT_integer_dot_product ") +
                              (VKTUNE_NEWER_SHADERC ? "yes" : "no") + " (prebuilt)"),
            std::string::npos)
      << table.output;
}

}  // namespace
}  // namespace vktune::testing
