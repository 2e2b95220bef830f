// Base64 used for SPIR-V in JSON documents: RFC 4648 vectors and strict rejection.
#include "db/base64.h"

#include <gtest/gtest.h>

namespace vktune::db {
namespace {

std::vector<uint8_t> bytes(std::string_view s) { return {s.begin(), s.end()}; }

TEST(Base64, Rfc4648Vectors) {
  const std::pair<const char*, const char*> cases[] = {
      {"", ""},         {"f", "Zg=="},         {"fo", "Zm8="},        {"foo", "Zm9v"},
      {"foob", "Zm9vYg=="}, {"fooba", "Zm9vYmE="}, {"foobar", "Zm9vYmFy"}};
  for (const auto& [plain, encoded] : cases) {
    EXPECT_EQ(base64_encode(bytes(plain)), encoded);
    EXPECT_EQ(base64_decode(encoded), bytes(plain));
  }
}

TEST(Base64, RejectsMalformedText) {
  EXPECT_FALSE(base64_decode("Zg="));
  EXPECT_FALSE(base64_decode("Z!=="));
  EXPECT_FALSE(base64_decode("Zg==Zm9v"));
  EXPECT_FALSE(base64_decode("Z=g="));
}

TEST(Base64, AllByteValuesRoundTrip) {
  std::vector<uint8_t> all(256);
  for (int i = 0; i < 256; ++i) all[i] = static_cast<uint8_t>(i);
  EXPECT_EQ(base64_decode(base64_encode(all)), all);
}

}  // namespace
}  // namespace vktune::db
