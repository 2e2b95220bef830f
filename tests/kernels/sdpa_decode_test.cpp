// sdpa_decode on the test device (lavapipe here), in each dtype and with half math
// (sdpa_decode_half_f16), against the fp64 reference:
// ragged cache lengths (odd, shorter than the splits, not a multiple of any step), GQA ratios
// 1, 4 and 8, a few causal tokens, padded row blocks, head dims 64 to 256 where the device's
// subgroup lets a row's lanes hold them, and a cache longer than the L pushed.
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <random>

#include "tests/kernels/instance_sweep_fixture.h"
#include "tests/kernels/sdpa_problem.h"

namespace vktune::kernels {
namespace {

using KnobPicks = std::vector<std::pair<const char*, KnobValue>>;

class SdpaDecodeTest : public InstanceSweepFixture,
                       public ::testing::WithParamInterface<const char*> {
 protected:
  void SetUp() override {
    InstanceSweepFixture::SetUp();
    if (const std::string lacks =
            family().unavailable_reason(device().info(), linked_compiler_support());
        !lacks.empty()) {
      GTEST_SKIP() << lacks;
    }
  }
  const Family& family() const { return *find_family(GetParam()); }
  DType dtype() const { return family().dtype(); }
  Problem shape(uint32_t m, uint32_t l, uint32_t heads, uint32_t kv_heads, uint32_t d) const {
    return test::sdpa_problem(m, l, heads, kv_heads, d, dtype());
  }
  // The legal variant with these knob values (the rest the first legal ones), or none.
  std::optional<Knobs> variant(const Problem& p, const KnobPicks& wanted) {
    for (const Knobs& k : family().all_variants()) {
      const bool match = std::all_of(wanted.begin(), wanted.end(), [&](const auto& w) {
        return std::any_of(k.begin(), k.end(),
                           [&](const Knob& x) { return x.name == w.first && x.value == w.second; });
      });
      if (match && family().legality(k, p, device().info(), linked_compiler_support())) return k;
    }
    return std::nullopt;
  }
};

INSTANTIATE_TEST_SUITE_P(Families, SdpaDecodeTest,
                         ::testing::Values("sdpa_decode", "sdpa_decode_f16",
                                           "sdpa_decode_half_f16"),
                         [](const auto& instance) { return std::string(instance.param); });

TEST_P(SdpaDecodeTest, SpreadOfVariantsOnRaggedShapes) {
  const Problem shapes[] = {
      shape(1, 37, 4, 1, 64),    // GQA 4, L odd and shorter than most splits * steps
      shape(1, 301, 8, 1, 64),   // GQA 8
      shape(1, 77, 2, 2, 80),    // no GQA; D = 80 leaves some lanes idle
      shape(5, 37, 4, 4, 64),    // causal tokens, each attending a different length
      shape(3, 3, 8, 2, 64),     // M = L: the prompt fills the cache; 12 query rows
      shape(7, 130, 8, 1, 128),  // 56 query rows: several row blocks per KV head
  };
  for (const Problem& p : shapes) {
    // Most of the knob space is illegal on a given shape and device (the head dim fixes lanes x
    // chunks): spread over the legal variants, about four per shape unless all are asked for.
    const std::vector<Knobs> legal = legal_variants(family(), p);
    const size_t stride = sampling() ? std::max<size_t>(1, legal.size() / 4) : 1;
    const ProblemData data = make_random(p, p.n);
    const Reference ref = reference(p, data);
    size_t ran = 0;
    for (size_t i = p.n % stride; i < legal.size() && !HasFailure(); i += stride) {
      // A device error (a hang, a lost device) names the variant that caused it.
      try {
        ran += run_and_check(family(), legal[i], p, data, ref);
      } catch (const std::exception& e) {
        FAIL() << family().key(legal[i]) << " on " << describe(p) << ": " << e.what();
      }
    }
    EXPECT_GT(ran, 0u) << describe(p);
  }
}

// The knob values a spread may miss, each on a shape where it matters.
TEST_P(SdpaDecodeTest, EdgesOfTheKnobs) {
  struct Case {
    Problem p;
    KnobPicks knobs;
  };
  const uint32_t per = dtype() == DType::f16 ? 8 : 4;  // values a lane's 16-byte chunk holds
  const Case cases[] = {
      // More splits than positions: empty splits hand over weight 0.
      {shape(1, 37, 4, 1, 64), {{"splits", 128}, {"keys", 4}}},
      // Rows padding the last block (12 query rows in blocks of 8), several tokens.
      {shape(3, 40, 8, 2, 64), {{"rows", 8}, {"splits", 4}}},
      // The widest head dim the device's subgroup allows, and a long slice per workgroup.
      {shape(1, 523, 4, 1, dtype() == DType::f16 ? 256 : 128), {{"chunks", 4}, {"splits", 4}}},
      // One lane group per workgroup's subgroup, keys 1.
      {shape(2, 200, 8, 1, 128), {{"keys", 1}, {"wg", 64}}},
      // Halving with more sums a step than lanes (each lane ends with two of a row's), as many,
      // and fewer (the last shuffles whole butterflies; lanes share a sum), over odd step counts;
      // then with a lane holding the sums of two rows (8 rows of one key over 4 lanes).
      {shape(1, 301, 8, 1, 4 * per),
       {{"lanes", 4}, {"keys", 4}, {"rows", 2}, {"reduce", "halving"}}},
      {shape(2, 99, 8, 2, 4 * per),
       {{"lanes", 4}, {"keys", 1}, {"rows", 8}, {"reduce", "halving"}}},
      {shape(3, 43, 8, 2, 4 * per),
       {{"lanes", 4}, {"keys", 2}, {"rows", 2}, {"reduce", "halving"}}},
      {shape(1, 157, 2, 2, 8 * per),
       {{"lanes", 8}, {"keys", 2}, {"rows", 1}, {"reduce", "halving"}}},
      // Two steps in flight: over slices of about two steps (the last ragged), then over slices
      // of one position or none.
      {shape(2, 301, 8, 2, 4 * per), {{"keys", 2}, {"ahead", 2}, {"rows", 4}, {"splits", 8}}},
      {shape(1, 35, 4, 1, 8 * per),
       {{"keys", 4}, {"ahead", 2}, {"splits", 64}, {"reduce", "halving"}}},
  };
  for (const Case& c : cases) {
    const std::optional<Knobs> k = variant(c.p, c.knobs);
    ASSERT_TRUE(k.has_value()) << "no legal variant for " << describe(c.p);
    const ProblemData data = make_random(c.p, c.p.n);
    EXPECT_TRUE(run_and_check(family(), *k, c.p, data, reference(c.p, data)));
  }
}

// Random shapes (a fixed seed, so a failure reproduces): one legal variant of each, drawn too.
TEST_P(SdpaDecodeTest, RandomShapes) {
  std::mt19937 rng(20261128u + static_cast<unsigned>(dtype()));
  auto pick = [&](uint32_t lo, uint32_t hi) {
    return std::uniform_int_distribution<uint32_t>(lo, hi)(rng);
  };
  for (int i = 0; i < 4; ++i) {
    const uint32_t m = pick(0, 1) ? 1 : pick(2, 8);
    const uint32_t kv = pick(1, 2), ratio = 1u << pick(0, 3);
    const Problem p = shape(m, pick(m, 900), kv * ratio, kv, 8 * pick(2, 16));  // D 16..128
    const std::vector<Knobs> legal = legal_variants(family(), p);
    ASSERT_FALSE(legal.empty()) << describe(p);
    const ProblemData data = make_random(p, i + 1);
    EXPECT_TRUE(run_and_check(family(), legal[pick(0, uint32_t(legal.size()) - 1)], p, data,
                              reference(p, data)));
  }
}

// An engine binds its whole cache and pushes the current L: the splits divide that L, and
// nothing past it is read.
TEST_P(SdpaDecodeTest, ReadsOnlyTheFirstLPositionsOfALongerCache) {
  const Problem p = shape(2, 40, 8, 1, 64);
  Problem longer = p;
  longer.n = 300;
  const ProblemData data = make_random(p, 3);
  ProblemData padded = make_random(longer, 4);  // positions past 40 hold other values
  std::copy(data.keys.begin(), data.keys.end(), padded.keys.begin());
  std::copy(data.values.begin(), data.values.end(), padded.values.begin());
  padded.x = data.x;
  const std::optional<Knobs> k = variant(longer, {{"splits", 16}});
  ASSERT_TRUE(k.has_value());
  KernelInstance inst = KernelInstance::create(device(), compiler(), family(), *k, longer, padded,
                                               1, &pipelines());
  inst.set_length(p.n);
  device().run([&](vk::CommandBuffer& cb) { inst.record(cb); });
  const CheckResult c = check(inst.download_output(), reference(p, data), family().tolerance(p));
  EXPECT_TRUE(c.ok) << family().key(*k) << ": max error " << c.max_error;
}

}  // namespace
}  // namespace vktune::kernels
