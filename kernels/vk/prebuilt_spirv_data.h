// What cmake/embed_prebuilt.cmake generates from kernels/prebuilt/: the manifest's text and each
// module's words by file name. Read through kernels/vk/prebuilt_spirv.h.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

namespace vktune::prebuilt_data {

struct Blob {
  std::string_view name;  // e.g. "q4gsw_coopmat-0123456789abcdef.spv"
  std::span<const uint32_t> words;
};

std::string_view manifest() noexcept;
std::span<const Blob> blobs() noexcept;

}  // namespace vktune::prebuilt_data
