// Constraints: the stored JSON read back as written, and the runtime's allows() deciding as the
// catalogue's check() explains, for every variant of every family on a grid of shapes.
#include "kernels/constraints_json.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "kernels/family.h"

namespace vktune::kernels {
namespace {

TEST(ConstraintsTest, JsonReadsBackWhatWasWritten) {
  Constraints c;
  c.k_multiple = 32;
  c.gs_multiple = 8;
  c.n_multiple = 4;
  c.m_min = 2;
  c.m_max = 8;
  c.k_max = 128;
  c.k_min = 256;
  c.head_group_multiple = 4;
  c.query_rows_min = 3;
  c.head_group_max = 16;
  c.n_min = 225;
  c.split_tile_rows = 32;
  c.gs_power_of_two = true;
  EXPECT_EQ(constraints_from_json(to_json(c), "c"), c);
  // Unbounded fields are left out, and read back as their defaults.
  const nlohmann::json plain = to_json(Constraints{});
  EXPECT_FALSE(plain.contains("k_max"));
  EXPECT_FALSE(plain.contains("head_group_multiple"));
  EXPECT_FALSE(plain.contains("query_rows_min"));
  EXPECT_FALSE(plain.contains("split_tile_rows"));
  EXPECT_FALSE(plain.contains("gs_power_of_two"));
  EXPECT_EQ(constraints_from_json(plain, "c"), Constraints{});
}

TEST(ConstraintsTest, JsonErrorsNameTheField) {
  try {
    constraints_from_json(nlohmann::json{{"k_multiple", -8}}, "kernel 'x': constraints_json");
    FAIL() << "a negative multiple was read";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "kernel 'x': constraints_json.k_multiple is not an unsigned integer");
  }
  EXPECT_THROW(constraints_from_json(nlohmann::json::array(), "c"), std::invalid_argument);
  EXPECT_THROW(constraints_from_json(nlohmann::json{{"gs_power_of_two", 1}}, "c"),
               std::invalid_argument);
}

TEST(ConstraintsTest, AllowsDecidesAsCheckExplains) {
  size_t checked = 0, refused = 0;
  for (const Family* family : families()) {
    for (const Knobs& knobs : family->all_variants()) {
      const Constraints c = family->constraints(knobs);
      for (uint32_t m : {1u, 3u, 8u, 64u}) {
        for (uint32_t k : {64u, 96u, 128u, 4096u}) {
          // Head counts are sdpa's alone (8 or 32 query heads over 8 KV heads), group sizes
          // q4gsw's (32, or 96, no power of two).
          for (const bool other : {false, true}) {
            Problem p{family->op(), m, 4096, k, 32};
            if (family->op() == Op("sdpa")) {
              p.heads = other ? 32 : 8;
              p.kv_heads = 8;
            }
            if (family->op() == Op("q4gsw") && other) p.group_size = 96;
            const bool allowed = c.allows(p);
            EXPECT_EQ(allowed, check(c, p).empty()) << family->key(knobs) << " " << describe(p);
            ++checked;
            refused += allowed ? 0 : 1;
          }
        }
      }
    }
  }
  EXPECT_GT(refused, 0u);
  EXPECT_GT(checked, refused);
}

}  // namespace
}  // namespace vktune::kernels
