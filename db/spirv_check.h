// What makes bytes a SPIR-V module a runtime may hand to vkCreateShaderModule: checked before
// a module is stored (import) and before it is served (the runtime's snapshot).
#pragma once

#include <cstdint>
#include <span>
#include <string>

namespace vktune::db {

// The smallest module: the header's five words (magic, version, generator, bound, schema).
inline constexpr size_t kSpirvHeaderBytes = 20;
inline constexpr uint32_t kSpirvMagic = 0x07230203;

// Empty when `bytes` could be a SPIR-V module: whole 32-bit words, at least the header, the
// magic number first (in this machine's byte order, as Vulkan takes it); else why not, e.g.
// "is 5 bytes, not whole 32-bit words". The instructions are not checked (that is the
// SPIR-V validator's job, which the runtime does not link).
std::string spirv_problem(std::span<const uint8_t> bytes);

}  // namespace vktune::db
