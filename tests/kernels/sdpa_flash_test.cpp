// The tensor-core attention families on the test device: sdpa_flash_f16 and sdpa_flash_khr_f16
// (prefill), sdpa_decode_mma_f16 and sdpa_decode_mma_khr_f16 (a few tokens). Where the device
// lacks the family's cooperative-matrix extension (lavapipe), every variant is illegal and the
// reason names the extension. Where it has it (the H200), a spread of the variants against the
// fp64 reference on ragged shapes: odd L, L a multiple of no block, M a multiple of no tile,
// M = L (every row masked differently) and M far below L, 1, 4 and 8 query heads a KV head (and
// 16 for decode), head dims 64, 128 and 256 (64 and 128 for decode).
#include <gtest/gtest.h>

#include <ostream>

#include "tests/kernels/instance_sweep_fixture.h"
#include "tests/kernels/sdpa_problem.h"

namespace vktune::kernels {
namespace {

struct Api {
  const char* family;
  const char* extension;  // the device extension its tiles go through
  bool vk::DeviceFeatures::*supported;
  bool decode;  // up to 16 tokens' rows a KV head
};
void PrintTo(const Api& api, std::ostream* os) { *os << api.family; }

class SdpaFlashTest : public InstanceSweepFixture, public ::testing::WithParamInterface<Api> {
 protected:
  const Family& family() const { return *find_family(GetParam().family); }
  bool has_extension() const { return device().info().features.*GetParam().supported; }
};

INSTANTIATE_TEST_SUITE_P(Apis, SdpaFlashTest,
                         ::testing::Values(Api{"sdpa_flash_f16", "VK_NV_cooperative_matrix",
                                               &vk::DeviceFeatures::coopmat_nv, false},
                                           Api{"sdpa_flash_khr_f16", "VK_KHR_cooperative_matrix",
                                               &vk::DeviceFeatures::coopmat_khr, false},
                                           Api{"sdpa_decode_mma_f16", "VK_NV_cooperative_matrix",
                                               &vk::DeviceFeatures::coopmat_nv, true},
                                           Api{"sdpa_decode_mma_khr_f16",
                                               "VK_KHR_cooperative_matrix",
                                               &vk::DeviceFeatures::coopmat_khr, true}),
                         [](const auto& instance) { return std::string(instance.param.family); });

Problem sdpa(uint32_t m, uint32_t l, uint32_t heads, uint32_t kv_heads, uint32_t d) {
  return test::sdpa_problem(m, l, heads, kv_heads, d, DType::f16);
}

TEST_P(SdpaFlashTest, IllegalWhereTheDeviceLacksTheExtensionNamingIt) {
  const vk::DeviceInfo& d = device().info();
  if (has_extension()) GTEST_SKIP() << d.name << " has " << GetParam().extension;
  const std::string why = d.name + " lacks " + GetParam().extension + ", which " + family().name() +
                          " needs for its tensor-core tiles";
  EXPECT_EQ(family().unavailable_reason(d, linked_compiler_support()), why);
  const Problem p = sdpa(37, 1001, 32, 8, 128);
  for (const Knobs& k : family().all_variants()) {
    const Legality l = family().legality(k, p, d, linked_compiler_support());
    EXPECT_FALSE(l.ok) << family().key(k);
    EXPECT_EQ(l.reason, why) << family().key(k);
  }
}

TEST_P(SdpaFlashTest, RaggedShapesMatchTheReference) {
  const std::string why = family().unavailable_reason(device().info(), linked_compiler_support());
  if (!why.empty()) GTEST_SKIP() << why;
  const std::vector<Problem> prefill = {sdpa(29, 1001, 32, 8, 128), sdpa(37, 37, 32, 8, 128),
                                        sdpa(21, 333, 12, 4, 64),   sdpa(17, 4099, 8, 8, 128),
                                        sdpa(30, 2047, 16, 2, 64),  sdpa(203, 203, 32, 8, 128),
                                        sdpa(29, 1001, 16, 4, 256)};
  // One token and a few (causal), bands full and padded, several bands a KV head (7 tokens of
  // 8 heads), 16 heads a KV head, L shorter than most splits' blocks.
  const std::vector<Problem> decode = {sdpa(1, 1001, 32, 8, 128), sdpa(4, 999, 32, 8, 128),
                                       sdpa(3, 777, 16, 4, 64),   sdpa(16, 1003, 8, 8, 128),
                                       sdpa(7, 2047, 16, 2, 64),  sdpa(2, 4099, 32, 2, 128),
                                       sdpa(1, 301, 8, 2, 64)};
  size_t offset = 0;
  for (const Problem& p : GetParam().decode ? decode : prefill) {
    EXPECT_GT(sweep(family().name(), p, spread(3), offset++), 0u) << describe(p);
  }
}

}  // namespace
}  // namespace vktune::kernels
