// SPIRV-Tools' validator over stored modules: a compiled module passes; one with a valid header
// and a broken body, one declaring a SPIR-V version the device's Vulkan does not take, and one
// whose instructions run past its end are refused with the reason; one using an operand newer
// than the linked SPIRV-Tools passes on its header.
#include "kernels/vk/spirv_validate.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "kernels/vk/shader_compiler.h"
#include "tests/kernels/value_shader.h"

namespace vktune::kernels {
namespace {

// VK_MAKE_API_VERSION(0, 1, minor, 0).
constexpr uint32_t vulkan_1(uint32_t minor) { return 1u << 22 | minor << 12; }

std::vector<uint32_t> compiled(TargetEnv env) {
  ShaderCompiler compiler(env);
  return *compiler.compile_text("v.comp", test::kValueShader, {{"VALUE", "1.0"}}, "v");
}

std::string error_of(const std::vector<uint32_t>& words, uint32_t api_version = 0) {
  return spirv_validation_error(
      std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(words.data()), words.size() * 4),
      api_version);
}

TEST(SpirvValidate, ACompiledModulePassesOnEveryVulkanThatTakesIt) {
  const std::vector<uint32_t> spv15 = compiled(TargetEnv::vulkan_1_2);
  ASSERT_EQ(spv15[1], 0x00010500u) << "vulkan1.2 compiles to SPIR-V 1.5";
  EXPECT_EQ(error_of(spv15), "");
  EXPECT_EQ(error_of(spv15, vulkan_1(2)), "");
  EXPECT_EQ(error_of(spv15, vulkan_1(3)), "");
  EXPECT_EQ(error_of(spv15, vulkan_1(1)),
            "declares SPIR-V 1.5, which needs Vulkan 1.2; the device has Vulkan 1.1");
  EXPECT_EQ(error_of(compiled(TargetEnv::vulkan_1_1), vulkan_1(1)), "");
}

TEST(SpirvValidate, AValidHeaderOverABrokenBodyIsRefused) {
  std::vector<uint32_t> words = compiled(TargetEnv::vulkan_1_2);
  ASSERT_EQ(words.back(), 0x00010038u) << "the module ends with OpFunctionEnd";
  words.pop_back();
  const std::string why = error_of(words);
  EXPECT_EQ(why.rfind("fails SPIR-V validation (vulkan1.2): ", 0), 0u) << why;
  EXPECT_EQ(why.find('\n'), std::string::npos) << "one line: " << why;
  // Just the header: no memory model, no entry point.
  words.resize(5);
  EXPECT_NE(error_of(words).find("fails SPIR-V validation"), std::string::npos);
}

TEST(SpirvValidate, InstructionsRunningPastTheEndAreRefused) {
  std::vector<uint32_t> words = compiled(TargetEnv::vulkan_1_2);
  words.push_back(10u << 16 | 17);  // OpCapability claiming 10 words, with none after it
  EXPECT_NE(error_of(words).find("fails SPIR-V validation"), std::string::npos) << error_of(words);
}

// Debian 12's SPIRV-Tools predates the KHR cooperative matrix the newer compiler emits: a module
// it cannot parse whose instructions are well formed is taken on its header.
TEST(SpirvValidate, AnOperandNewerThanTheValidatorPassesOnItsHeader) {
  std::vector<uint32_t> words = compiled(TargetEnv::vulkan_1_2);
  // Right after the header: OpCapability with a capability no SPIR-V release defines.
  const uint32_t capability[] = {2u << 16 | 17, 0x3ffffff0};
  words.insert(words.begin() + 5, std::begin(capability), std::end(capability));
  EXPECT_EQ(error_of(words), "");
}

TEST(SpirvValidate, HeaderProblemsAndUnknownVersionsAreRefusedFirst) {
  const std::vector<uint8_t> five{0x03, 0x02, 0x23, 0x07, 0};
  EXPECT_EQ(spirv_validation_error(five), "is 5 bytes, not whole 32-bit words");
  std::vector<uint32_t> words = compiled(TargetEnv::vulkan_1_2);
  words[1] = 0x00010700;
  EXPECT_EQ(error_of(words), "declares SPIR-V 1.7, which no Vulkan takes");
  words[1] = 0x00020000;
  EXPECT_EQ(error_of(words), "declares SPIR-V 2.0, which no Vulkan takes");
}

}  // namespace
}  // namespace vktune::kernels
