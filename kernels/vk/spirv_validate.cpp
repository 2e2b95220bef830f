// spvValidate under the Vulkan environment a module declares (and a device takes).
#include "kernels/vk/spirv_validate.h"

#include <spirv-tools/libspirv.h>

#include <cstring>
#include <memory>
#include <vector>

#include "db/spirv_check.h"

namespace vktune::kernels {
namespace {

// spirv-val's environment for a module of SPIR-V 1.`spirv_minor` (<= 6), and the Vulkan 1.x
// whose core takes it (SPIR-V 1.4 counts as Vulkan 1.2's: in 1.1 it needs an extension).
struct Environment {
  spv_target_env env;
  const char* name;
  uint32_t vulkan_minor;
};
Environment environment(uint32_t spirv_minor) {
  if (spirv_minor <= 3) return {SPV_ENV_VULKAN_1_1, "vulkan1.1", 1};
  if (spirv_minor == 4) return {SPV_ENV_VULKAN_1_1_SPIRV_1_4, "vulkan1.1spv1.4", 2};
  if (spirv_minor == 5) return {SPV_ENV_VULKAN_1_2, "vulkan1.2", 2};
  return {SPV_ENV_VULKAN_1_3, "vulkan1.3", 3};
}

// Whether the words after the five-word header split into whole instructions: each one's word
// count (the high half of its first word) at least 1, the last ending at the module's end.
bool instructions_fit(std::span<const uint32_t> words) {
  size_t at = 5;
  while (at < words.size()) {
    const uint32_t count = words[at] >> 16;
    if (count == 0 || count > words.size() - at) return false;
    at += count;
  }
  return true;
}

}  // namespace

std::string spirv_validation_error(std::span<const uint8_t> bytes, uint32_t vulkan_api_version) {
  if (std::string header = db::spirv_problem(bytes); !header.empty()) return header;
  std::vector<uint32_t> words(bytes.size() / 4);
  std::memcpy(words.data(), bytes.data(), bytes.size());
  // The version word is 0x00MMmm00; a VkPhysicalDeviceProperties::apiVersion holds the major
  // version in bits 22-28 and the minor in bits 12-21.
  const uint32_t major = words[1] >> 16 & 0xff, minor = words[1] >> 8 & 0xff;
  const std::string declared = "SPIR-V " + std::to_string(major) + "." + std::to_string(minor);
  if (major != 1 || minor > 6) return "declares " + declared + ", which no Vulkan takes";
  const Environment e = environment(minor);
  const uint32_t device_major = vulkan_api_version >> 22 & 0x7f;
  const uint32_t device_minor = vulkan_api_version >> 12 & 0x3ff;
  if (vulkan_api_version != 0 && device_major == 1 && device_minor < e.vulkan_minor) {
    return "declares " + declared + ", which needs Vulkan 1." + std::to_string(e.vulkan_minor) +
           "; the device has Vulkan 1." + std::to_string(device_minor);
  }
  const std::unique_ptr<spv_context_t, decltype(&spvContextDestroy)> context(
      spvContextCreate(e.env), spvContextDestroy);
  spv_diagnostic diagnostic = nullptr;
  const spv_result_t result =
      spvValidateBinary(context.get(), words.data(), words.size(), &diagnostic);
  const std::unique_ptr<spv_diagnostic_t, decltype(&spvDiagnosticDestroy)> owned(
      diagnostic, spvDiagnosticDestroy);
  if (result == SPV_SUCCESS) return {};
  // A module the linked SPIRV-Tools cannot parse though its instructions are well formed uses
  // opcodes or operands newer than it (Debian 12's does not know the KHR cooperative matrix the
  // newer compiler emits): the header checks are all this build can make.
  if (result == SPV_ERROR_INVALID_BINARY && instructions_fit(words)) return {};
  std::string why = diagnostic != nullptr && diagnostic->error != nullptr ? diagnostic->error
                                                                          : "no message";
  // spirv-val shows the offending instruction on the lines after the first, which says why.
  why = why.substr(0, why.find('\n'));
  return std::string("fails SPIR-V validation (") + e.name + "): " + why;
}

}  // namespace vktune::kernels
