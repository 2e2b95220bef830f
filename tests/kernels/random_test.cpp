// The portable random stream: fill() cuts it into pieces drawn on several cores and gives what
// one sequential loop gives, values and the stream's position both.
#include "kernels/random.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <span>
#include <vector>

namespace vktune::kernels {
namespace {

TEST(RandomFill, DrawsWhatOneSequentialLoopDraws) {
  // Large enough to be cut into pieces (4 Mi values each) on a machine of two cores or more.
  constexpr size_t kCount = (size_t{9} << 20) + 7;
  Rng split{42}, one{42};
  std::vector<uint8_t> bytes(kCount), expected(kCount);
  fill(split, std::span(bytes), 1, [](Rng& r) { return static_cast<uint8_t>(r.next() & 0xFF); });
  for (uint8_t& b : expected) b = static_cast<uint8_t>(one.next() & 0xFF);
  EXPECT_EQ(bytes, expected);
  EXPECT_EQ(split.state, one.state);
  // Two draws a value (a magnitude and a sign), after the bytes.
  std::vector<float> values(kCount), expected_values(kCount);
  fill(split, std::span(values), 2, [](Rng& r) { return r.signed_nonzero(); });
  for (float& v : expected_values) v = one.signed_nonzero();
  EXPECT_EQ(values, expected_values);
  EXPECT_EQ(split.state, one.state);
}

TEST(RandomFill, SkipIsThatManyDraws) {
  Rng skipped{7}, drawn{7};
  skipped.skip(1000);
  for (int i = 0; i < 1000; ++i) drawn.next();
  EXPECT_EQ(skipped.next(), drawn.next());
}

}  // namespace
}  // namespace vktune::kernels
