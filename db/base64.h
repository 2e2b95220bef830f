// Base64 (RFC 4648, padded) for SPIR-V blobs inside JSON documents.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace vktune::db {

std::string base64_encode(std::span<const uint8_t> bytes);
// nullopt on any character outside the alphabet, bad padding or a length not a multiple of 4.
std::optional<std::vector<uint8_t>> base64_decode(std::string_view text);

}  // namespace vktune::db
