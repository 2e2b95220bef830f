// The SPIR-V of every built-in variant, compiled when the catalogue last changed and kept in
// runtime/builtin_spirv.inc, so every built-in answer is dispatchable without a shader compiler
// (the runtime-only build has none). tests/runtime/builtin_spirv_test.cpp compiles the
// catalogue's shaders and fails on any difference; VKTUNE_REGENERATE=1 rewrites the file.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

namespace vktune::runtime {

// The built-in variant's SPIR-V words, or an empty span when the file does not hold the key.
std::span<const uint32_t> builtin_spirv(std::string_view variant_key) noexcept;

}  // namespace vktune::runtime
