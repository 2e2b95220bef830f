// `vktune devices` says which families a device cannot run, and why: with Debian 12's shaderc
// q4gsw_gemv_i8dot needs the newer compiler, with the newer one (VKTUNE_NEWER_SHADERC=1) only a
// device without shaderIntegerDotProduct refuses it; and which GLSL extensions the linked
// compiler accepts.
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
  }
  for (const nlohmann::json& d : doc["devices"]) {
    const nlohmann::json& unavailable = d["unavailable_families"];
    const bool dot = d["features"]["shader_integer_dot_product"];
    if (!VKTUNE_NEWER_SHADERC) {
      ASSERT_TRUE(unavailable.contains("q4gsw_gemv_i8dot")) << d["name"];
      EXPECT_NE(unavailable["q4gsw_gemv_i8dot"].get<std::string>().find(
                    "needs a shader compiler that accepts GL_EXT_integer_dot_product"),
                std::string::npos);
    } else if (!dot) {
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
                              (VKTUNE_NEWER_SHADERC ? "yes" : "no")),
            std::string::npos)
      << table.output;
}

}  // namespace
}  // namespace vktune::testing
