// Which kernels of an exported document a runtime can answer with (the winners and the head of
// each ranked list), and the check that exactly those carry SPIR-V.
#pragma once

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "db/base64.h"
#include "db/records.h"

namespace vktune::testing {

// Indices of the kernels a runtime loading `doc` can answer with.
inline std::set<size_t> answerable_kernels(const nlohmann::json& doc) {
  std::set<size_t> out;
  for (const nlohmann::json& w : doc["winners"]) out.insert(w[2].get<size_t>());
  const nlohmann::json& ranked = doc["ranked"];
  for (size_t i = 0, in_list = 0; i < ranked.size(); ++i) {
    const bool same = i > 0 && ranked[i][0] == ranked[i - 1][0] && ranked[i][1] == ranked[i - 1][1];
    in_list = same ? in_list + 1 : 0;
    if (in_list < db::kRankedPickable) out.insert(ranked[i][2].get<size_t>());
  }
  return out;
}

// Every answerable kernel has SPIR-V (starting with its magic number); no other kernel has any.
inline void expect_spirv_for_every_answer(const nlohmann::json& doc, const std::string& what) {
  const std::set<size_t> answerable = answerable_kernels(doc);
  ASSERT_FALSE(answerable.empty()) << what;
  const nlohmann::json& kernels = doc["kernels"];
  for (size_t i = 0; i < kernels.size(); ++i) {
    const nlohmann::json& k = kernels[i];
    const std::string key = k["variant_key"].get<std::string>();
    if (!answerable.count(i)) {
      EXPECT_TRUE(k["spirv"].is_null()) << what << ": " << key << " is never an answer";
      continue;
    }
    ASSERT_TRUE(k["spirv"].is_string()) << what << ": " << key << " has no SPIR-V";
    const auto bytes = db::base64_decode(k["spirv"].get<std::string>());
    ASSERT_TRUE(bytes && bytes->size() > 20) << what << ": " << key;
    EXPECT_EQ((*bytes)[0], 0x03);  // 0x07230203, little-endian
    EXPECT_EQ((*bytes)[3], 0x07);
  }
}

}  // namespace vktune::testing
