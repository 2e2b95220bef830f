// rope as catalogue data, no GPU: problem validation (bad input names the value and the fix),
// sizes, work and push constants, the families' legality, and the fp64 reference on a case
// small enough to work out by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <nlohmann/json.hpp>

#include "kernels/families/reference.h"
#include "kernels/family.h"
#include "tests/kernels/fake_devices.h"

namespace vktune::kernels {
namespace {

Problem rope(uint32_t m, uint32_t l, uint32_t heads, uint32_t d) {
  Problem p{Op("rope"), m, l, d, 0, false};
  p.heads = heads;
  return p;
}

void expect_invalid(const Problem& p, const std::string& words) {
  const std::string reason = validate(p);
  EXPECT_NE(reason.find(words), std::string::npos) << describe(p) << ": " << reason;
  EXPECT_THROW(require_valid(p), InvalidProblem);
}

TEST(RopeProblem, BadInputIsNamedWithTheFix) {
  EXPECT_EQ(validate(rope(1, 512, 32, 128)), "");
  EXPECT_EQ(validate(rope(4, 4, 8, 2)), "");  // M == L: the prompt fills the table
  expect_invalid(rope(0, 4, 8, 64), "M=0");
  expect_invalid(rope(5, 4, 8, 64), "L=4 < M=5");
  expect_invalid(rope(1, 4, 8, 63), "head dim D=63 is not a positive even number");
  expect_invalid(rope(1, 4, 8, 0), "head dim D=0");
  expect_invalid(rope(1, 4, 0, 64), "heads=0");
  Problem kv = rope(1, 4, 8, 64);
  kv.kv_heads = 2;
  expect_invalid(kv, "set kv_heads=0");
  Problem grouped = rope(1, 4, 8, 64);
  grouped.group_size = 32;
  expect_invalid(grouped, "no group size or bias");
  EXPECT_EQ(describe(rope(1, 512, 32, 128)), "rope M=1 L=512 H=32 D=128");
  EXPECT_EQ(parse_op("rope"), Op("rope"));
}

TEST(RopeProblem, SizesWorkAndPushConstants) {
  const Problem p = rope(3, 100, 8, 64);
  const BindingSizes s = binding_sizes(p, Layout::none);
  EXPECT_EQ(s.x, 3u * 8 * 64 * 4);
  EXPECT_EQ(s.out, s.x);
  EXPECT_EQ(s.of(BufferRole::vector), 100u * 64 * 4);  // the table: L x D/2 (cos, sin)
  EXPECT_EQ(output_count(p), 3u * 8 * 64);
  EXPECT_DOUBLE_EQ(flops(p), 3.0 * 3 * 8 * 64);
  const std::vector<std::byte> push = push_constants(p);
  ASSERT_EQ(push.size(), 16u);
  uint32_t words[4];
  std::memcpy(words, push.data(), sizeof words);
  EXPECT_EQ(words[0], 3u);    // tokens
  EXPECT_EQ(words[1], 100u);  // length
  EXPECT_EQ(words[2], 8u);    // heads
  EXPECT_EQ(words[3], 64u);   // head dim
  EXPECT_EQ(op_descriptor(Op("rope")).baseline_family, "rope_pairs");
  EXPECT_TRUE(op_descriptor(Op("rope")).n_is_length);
}

// Token 0 of 1 at position L - 1 = 2, one head of D = 4: pairs (0, 2) and (1, 3).
TEST(RopeReference, ASmallCaseByHand) {
  const Problem p = rope(1, 3, 1, 4);
  ProblemData d = make_random(p, 1);
  ASSERT_EQ(d.table.size(), 3u * 4);
  // Position 0 is the identity; position p's first pair turns by p radians (theta^0).
  EXPECT_FLOAT_EQ(d.table[0], 1.0f);
  EXPECT_FLOAT_EQ(d.table[1], 0.0f);
  EXPECT_FLOAT_EQ(d.table[8], float(std::cos(2.0)));
  EXPECT_FLOAT_EQ(d.table[9], float(std::sin(2.0)));
  d.x = {1, 2, 3, 4};
  d.table = {1, 0, 1, 0, 1, 0, 1, 0, 0.6f, 0.8f, 0, 1};
  const Reference r = reference(p, d);
  ASSERT_EQ(r.values.size(), 4u);
  // Pair (0, 2): a = 1, b = 3 at (c, s) = (0.6, 0.8); pair (1, 3): a = 2, b = 4 at (0, 1).
  EXPECT_NEAR(r.values[0], 1 * 0.6 - 3 * 0.8, 1e-7);
  EXPECT_NEAR(r.values[2], 1 * 0.8 + 3 * 0.6, 1e-7);
  EXPECT_NEAR(r.values[1], -4.0, 1e-7);
  EXPECT_NEAR(r.values[3], 2.0, 1e-7);
  EXPECT_NEAR(r.bounds[0], 0.6 + 3 * 0.8, 1e-6);
}

TEST(RopeFamilies, VectorsNeedTheirHeadDim) {
  const vk::DeviceInfo device = test::lavapipe_like();
  const Family& rows = *find_family("rope_rows");
  const Problem odd_pairs = rope(1, 8, 4, 6);  // D/2 = 3 pairs: only vec 1 fits
  size_t legal = 0;
  for (const Knobs& k : rows.all_variants()) {
    const Legality l = rows.legality(k, odd_pairs, device);
    if (knob_int(k, "vec") == 1) {
      EXPECT_TRUE(l.ok) << rows.key(k) << ": " << l.reason;
      legal += l.ok;
    } else {
      EXPECT_NE(l.reason.find("is not a multiple of"), std::string::npos) << l.reason;
    }
  }
  EXPECT_EQ(legal, rows.all_variants().size() / 3);
  // A workgroup per hpw heads, a pair per invocation.
  const Problem p = rope(5, 8, 3, 64);
  const Knobs four = rows.knobs_from_json(nlohmann::json::parse(R"({"vec":1,"hpw":4,"wg":32})"));
  EXPECT_EQ(rows.groups(four, p, device)[0], 4u);  // ceil(15 / 4)
  const Family& pairs = *find_family("rope_pairs");
  const Knobs wg64 = pairs.knobs_from_json(nlohmann::json::parse(R"({"wg":64})"));
  EXPECT_EQ(pairs.groups(wg64, p, device)[0], 8u);  // ceil(5 * 3 * 32 / 64)
}

}  // namespace
}  // namespace vktune::kernels
