// sdpa as catalogue data, no GPU: problem validation (bad input names the value and the fix),
// sizes, work and push constants, the families' legality on fake devices, and the fp64
// reference on cases small enough to work out by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <nlohmann/json.hpp>

#include "kernels/families/reference.h"
#include "kernels/family.h"
#include "kernels/float16.h"
#include "tests/kernels/fake_devices.h"
#include "tests/kernels/sdpa_problem.h"

namespace vktune::kernels {
namespace {

Problem sdpa(uint32_t m, uint32_t l, uint32_t heads, uint32_t kv_heads, uint32_t d) {
  return test::sdpa_problem(m, l, heads, kv_heads, d);
}

vk::DeviceInfo device(uint32_t invocations, uint32_t shared_bytes) {
  vk::DeviceInfo d;
  d.name = "fake";
  d.limits.max_invocations = invocations;
  d.limits.max_workgroup_size = {invocations, invocations, 64};
  d.limits.max_workgroup_count = {65535, 65535, 65535};
  d.limits.max_shared_memory_bytes = shared_bytes;
  d.limits.max_storage_buffer_range = 1u << 30;
  return d;
}

void expect_invalid(const Problem& p, const std::string& words) {
  const std::string reason = validate(p);
  EXPECT_NE(reason.find(words), std::string::npos) << describe(p) << ": " << reason;
  EXPECT_THROW(require_valid(p), InvalidProblem);
}

TEST(SdpaProblem, BadInputIsNamedWithTheFix) {
  EXPECT_EQ(validate(sdpa(1, 512, 32, 8, 128)), "");
  EXPECT_EQ(validate(sdpa(4, 4, 8, 8, 80)), "");  // M == L: the prompt fills the cache
  expect_invalid(sdpa(1, 512, 32, 6, 128), "heads=32 is not a multiple of kv_heads=6");
  expect_invalid(sdpa(1, 0, 32, 8, 128), "L=0");
  expect_invalid(sdpa(5, 4, 32, 8, 128), "L=4 < M=5");
  expect_invalid(sdpa(0, 4, 32, 8, 128), "M=0");
  expect_invalid(sdpa(1, 4, 32, 8, 0), "head dim D=0");
  expect_invalid(sdpa(1, 4, 0, 0, 64), "heads >= 1");
  Problem with_bias = sdpa(1, 4, 2, 1, 64);
  with_bias.has_bias = true;
  expect_invalid(with_bias, "no group size or bias");
  Problem linear{Op("q4gsw"), 1, 64, 64, 32, false};
  linear.heads = 4;
  expect_invalid(linear, "q4gsw has no heads");
  EXPECT_EQ(describe(sdpa(1, 512, 32, 8, 128)), "sdpa M=1 L=512 Hq=32 Hkv=8 D=128");
  EXPECT_EQ(parse_op("sdpa"), Op("sdpa"));
}

// f16 sdpa: valid, served by the _f16 instance of every family and only by it, on a device with
// 16-bit storage; without it, each names the missing feature. Every float tensor (q, both
// caches, out) is 2-byte; the fp32 workspaces are not; inputs are rounded to fp16.
TEST(SdpaProblem, F16IsServedByTheF16InstancesOnly) {
  Problem half = sdpa(1, 512, 32, 8, 128);
  half.dtype = DType::f16;
  EXPECT_EQ(validate(half), "");
  EXPECT_EQ(describe(half), "sdpa M=1 L=512 Hq=32 Hkv=8 D=128 f16");
  vk::DeviceInfo with16 = device(1024, 49152);
  with16.features.storage_16bit = true;
  vk::DeviceInfo without16 = with16;
  without16.features.storage_16bit = false;
  const Problem single = sdpa(1, 512, 32, 8, 128);
  for (const char* base : {"sdpa_naive", "sdpa_fused", "sdpa_split"}) {
    const Family& f32 = *find_family(base);
    const Family& f16 = *find_family(family_name(base, DType::f16));
    EXPECT_EQ(f16.dtype(), DType::f16);
    EXPECT_EQ(f16.op(), Op("sdpa"));
    const Knobs k = f16.all_variants().front();
    EXPECT_TRUE(f16.legality(k, half, with16).ok) << f16.legality(k, half, with16).reason;
    EXPECT_EQ(f16.legality(k, half, without16).reason,
              "fake lacks storageBuffer16BitAccess, which " + f16.name() +
                  " needs for its fp16 tensors");
    EXPECT_EQ(f32.legality(k, half, with16).reason,
              std::string(base) + " computes f32 problems, not f16");
    EXPECT_EQ(f16.legality(k, single, with16).reason,
              f16.name() + " computes f16 problems, not f32");
    EXPECT_TRUE(f32.legality(k, single, without16).ok);  // f32 needs no 16-bit storage
    EXPECT_EQ(f16.workspace_bytes(k, half), f32.workspace_bytes(k, single)) << base;
    EXPECT_EQ(f16.shared_bytes(k), f32.shared_bytes(k)) << base;
    // The output's rounding to fp16 adds 2^-11 of the bound to the gate's tolerance.
    EXPECT_DOUBLE_EQ(f16.tolerance(half) - f32.tolerance(single), 0x1p-11) << base;
  }
  const BindingSizes s = binding_sizes(half, Layout::none);
  EXPECT_EQ(s.x, 32u * 128 * 2);
  EXPECT_EQ(s.out, s.x);
  EXPECT_EQ(s.keys, 512u * 8 * 128 * 2);
  EXPECT_EQ(s.values, s.keys);
  const ProblemData d = make_random(half, 7);
  EXPECT_EQ(d.x.size(), 32u * 128);
  EXPECT_EQ(d.keys.size(), 512u * 8 * 128);
  EXPECT_EQ(d.values.size(), d.keys.size());
  for (const std::vector<float>* t : {&d.x, &d.keys, &d.values}) {
    for (float v : *t) ASSERT_EQ(v, round_to_half(v));
  }
}

TEST(SdpaProblem, SizesWorkAndPushConstants) {
  const Problem p = sdpa(3, 100, 8, 2, 64);
  const BindingSizes s = binding_sizes(p, Layout::none);
  EXPECT_EQ(s.x, 3u * 8 * 64 * 4);
  EXPECT_EQ(s.out, s.x);
  EXPECT_EQ(s.keys, 100u * 2 * 64 * 4);
  EXPECT_EQ(s.values, s.keys);
  EXPECT_EQ(s.total(), 2 * s.x + 2 * s.keys);
  EXPECT_EQ(output_count(p), 3u * 8 * 64);
  // Tokens at positions 97, 98, 99 attend 98 + 99 + 100 positions.
  EXPECT_DOUBLE_EQ(flops(p), 4.0 * 8 * 64 * (98 + 99 + 100));
  const std::vector<std::byte> push = push_constants(p);
  ASSERT_EQ(push.size(), sizeof(SdpaPush));
  SdpaPush decoded;
  std::memcpy(&decoded, push.data(), sizeof decoded);
  EXPECT_EQ(decoded.length, 100u);
  EXPECT_EQ(decoded.tokens, 3u);
  EXPECT_FLOAT_EQ(decoded.scale, 0.125f);
  EXPECT_EQ(op_descriptor(Op("sdpa")).baseline_family, "sdpa_naive");
}

TEST(SdpaFamilies, HeadDimAndDeviceLimitsAreClearErrors) {
  const vk::DeviceInfo ok = device(1024, 32768);
  const Problem wide = sdpa(1, 64, 4, 1, 320);
  const Family& fused = *find_family("sdpa_fused");
  const Family& split = *find_family("sdpa_split");
  const Family& naive = *find_family("sdpa_naive");
  for (const Family* f : {&fused, &split}) {
    const Legality l = f->legality(f->all_variants().front(), wide, ok);
    EXPECT_FALSE(l.ok);
    EXPECT_NE(l.reason.find("head dim D=320 is above this variant's k_max=256"), std::string::npos)
        << l.reason;
  }
  EXPECT_TRUE(naive.legality(naive.all_variants().front(), wide, ok).ok);  // any head dim
  // vec4 needs D % 4 == 0.
  const Legality odd = fused.legality(parse_key("sdpa_fused[vec=4,keys=1,wg=64,qpg=1]").knobs,
                                      sdpa(1, 64, 4, 1, 42), ok);
  EXPECT_NE(odd.reason.find("head dim D=42 is not a multiple of 4"), std::string::npos)
      << odd.reason;
  // Workgroup size and shared memory past the device's.
  const Knobs big = parse_key("sdpa_split[vec=1,keys=4,wg=128,slices=2,qpg=1]").knobs;
  const Problem p = sdpa(1, 64, 4, 1, 64);
  EXPECT_NE(split.legality(big, p, device(64, 32768)).reason.find("workgroup size 128 exceeds"),
            std::string::npos);
  EXPECT_NE(split.legality(big, p, device(1024, 2048)).reason.find("bytes of shared memory"),
            std::string::npos);
  // qpg must divide the query heads per KV head (GQA group): here 8 / 4 = 2. A constraint, so
  // the runtime, which links no Vulkan, can ask it too.
  const Knobs qpg4 = parse_key("sdpa_split[vec=4,keys=1,wg=64,slices=8,qpg=4]").knobs;
  EXPECT_EQ(split.constraints(qpg4).head_group_multiple, 4u);
  EXPECT_EQ(to_json(split.constraints(qpg4)).value("head_group_multiple", 0u), 4u);
  EXPECT_NE(split.legality(qpg4, sdpa(1, 64, 8, 4, 64), ok)
                .reason.find("the 2 query heads per KV head (heads 8 / kv_heads 4) are not a "
                             "multiple of this variant's head_group_multiple=4"),
            std::string::npos);
  EXPECT_TRUE(split.legality(qpg4, sdpa(1, 64, 8, 2, 64), ok).ok);
  EXPECT_TRUE(split.legality(qpg4, sdpa(1, 64, 24, 2, 64), ok).ok);  // 12 per KV head
  EXPECT_FALSE(split.legality(qpg4, sdpa(1, 64, 28, 4, 64), ok).ok);  // 7 per KV head
  // Too many live accumulators: qpg 8 at wg 32 keeps 8 * (8 + 1) floats per invocation.
  EXPECT_NE(fused.legality(parse_key("sdpa_fused[vec=1,keys=1,wg=32,qpg=8]").knobs,
                           sdpa(1, 64, 8, 1, 64), ok)
                .reason.find("register pressure"),
            std::string::npos);
  // A bad problem is rejected by every family, with validate()'s reason.
  EXPECT_NE(naive.legality(naive.all_variants().front(), sdpa(1, 64, 3, 2, 64), ok)
                .reason.find("not a multiple of kv_heads"),
            std::string::npos);
}

TEST(SdpaFamilies, GeometryAndWorkspace) {
  const vk::DeviceInfo d = device(1024, 32768);
  const Problem p = sdpa(2, 100, 8, 2, 64);
  const Knobs k = parse_key("sdpa_split[vec=4,keys=1,wg=64,slices=8,qpg=1]").knobs;
  const Family& split = *find_family("sdpa_split");
  EXPECT_EQ(split.groups(k, p, d)[0], 2u * 8 * 8);
  // 16 counters (qpg 1: one per row), (m, l) of 128 states, acc [16, 8, 64].
  EXPECT_EQ(split.workspace_bytes(k, p), (16u + 256 + 128 * 64) * 4);
  // qpg 4 serves the 4 query heads of a KV head per workgroup: a quarter of the workgroups
  // and of the counters, the same per-row states.
  const Knobs k4 = parse_key("sdpa_split[vec=4,keys=1,wg=64,slices=8,qpg=4]").knobs;
  EXPECT_EQ(split.groups(k4, p, d)[0], 2u * 2 * 8);
  EXPECT_EQ(split.workspace_bytes(k4, p), (4u + 256 + 128 * 64) * 4);
  const Family& naive = *find_family("sdpa_naive");
  EXPECT_EQ(naive.workspace_bytes(naive.all_variants().front(), p), 2u * 8 * 100 * 4);
  const Family& fused = *find_family("sdpa_fused");
  EXPECT_EQ(fused.workspace_bytes(fused.all_variants().front(), p), 0u);
  EXPECT_EQ(fused.groups(fused.all_variants().front(), p, d)[0], 16u);
}

// sdpa_decode: Llama-3-8B's decode (32 query heads over 8 KV heads, D 128) in one workgroup per
// (KV head, split), every query head of the group in it; what a device or shape lacks is named.
TEST(SdpaFamilies, DecodeGeometryAndLegality) {
  const Family& decode = *find_family("sdpa_decode_f16");
  Problem llama = sdpa(1, 8192, 32, 8, 128);
  llama.dtype = DType::f16;
  const Knobs k =
      parse_key("sdpa_decode_f16[lanes=16,chunks=1,keys=2,ahead=1,wg=128,rows=4,splits=32,reduce=butterfly]").knobs;
  const vk::DeviceInfo h100 = test::h100_like();
  EXPECT_TRUE(decode.legality(k, llama, h100).ok) << decode.legality(k, llama, h100).reason;
  EXPECT_EQ(decode.groups(k, llama, h100)[0], 8u * 32);
  // 8 counters, (m, l) of 8 KV heads x 4 rows x 32 splits, their acc of 128 floats each.
  EXPECT_EQ(decode.workspace_bytes(k, llama), (8u + 2 * 1024 + 1024 * 128) * 4);
  auto reason = [&](const Knobs& knobs, const Problem& p, const vk::DeviceInfo& d) {
    return decode.legality(knobs, p, d).reason;
  };
  auto expect_reason = [](const std::string& got, const std::string& words) {
    EXPECT_NE(got.find(words), std::string::npos) << got;
  };
  expect_reason(reason(k, llama, test::lavapipe_like()),
                "lanes=16 spans more than one subgroup of llvmpipe (fake) (size 8)");
  vk::DeviceInfo no_shuffle = h100;
  no_shuffle.features.subgroup_shuffle = false;
  expect_reason(reason(k, llama, no_shuffle), "lacks VK_SUBGROUP_FEATURE_SHUFFLE_BIT");
  Problem p = llama;
  p.k = 132;
  expect_reason(reason(k, p, h100), "head dim D=132 is not a multiple of 8");
  p.k = 256;
  expect_reason(reason(k, p, h100), "head dim D=256 is above this variant's k_max=128");
  p.k = 64;
  expect_reason(reason(k, p, h100), "head dim D=64 is below this variant's k_min=65");
  p = llama;
  p.m = 9;
  expect_reason(reason(k, p, h100), "M=9 is above this variant's m_max=8");
  const Knobs rows8 =
      parse_key("sdpa_decode_f16[lanes=16,chunks=1,keys=2,ahead=1,wg=128,rows=8,splits=32,reduce=butterfly]").knobs;
  expect_reason(reason(rows8, llama, h100),
                "the 4 query rows a KV head serves (M x heads / kv_heads) are below this "
                "variant's query_rows_min=5");
  p.m = 2;  // 8 query rows per KV head: rows 8 fits them exactly
  EXPECT_TRUE(decode.legality(rows8, p, h100).ok);
  const Knobs heavy =
      parse_key("sdpa_decode_f16[lanes=8,chunks=2,keys=4,ahead=1,wg=128,rows=8,splits=32,reduce=butterfly]").knobs;
  expect_reason(reason(heavy, p, h100), "register pressure");
  // Two steps in flight hold 8 more words a key and chunk: 4 rows of 4 keys fit, of 8 rows not.
  EXPECT_TRUE(decode.legality(
                  parse_key("sdpa_decode_f16[lanes=16,chunks=1,keys=4,ahead=2,wg=256,rows=4,"
                            "splits=16,reduce=butterfly]")
                      .knobs,
                  llama, h100)
                  .ok);
  expect_reason(reason(parse_key("sdpa_decode_f16[lanes=16,chunks=1,keys=4,ahead=2,wg=256,rows=8,"
                                 "splits=16,reduce=butterfly]")
                           .knobs,
                       p, h100),
                "keep 224 words live");
  const Knobs one_sum =
      parse_key("sdpa_decode_f16[lanes=16,chunks=1,keys=1,ahead=1,wg=128,rows=1,splits=32,reduce=halving]")
          .knobs;
  expect_reason(reason(one_sum, llama, h100), "keys * rows = 1 sums one value a step");
  // Halving hands a step's weights over by shuffles: the merge's shared memory only, as the
  // butterfly's: 16 groups x 4 rows x (m, l and 128 values of acc), and last_split.
  const Knobs halving =
      parse_key("sdpa_decode_f16[lanes=16,chunks=1,keys=2,ahead=1,wg=256,rows=4,splits=16,reduce=halving]")
          .knobs;
  Knobs butterfly = halving;
  butterfly.back().value = std::string("butterfly");
  EXPECT_EQ(decode.shared_bytes(halving), (16u * 4 * (2 + 128) + 1) * 4);
  EXPECT_EQ(decode.shared_bytes(butterfly), decode.shared_bytes(halving));
  EXPECT_TRUE(decode.legality(halving, llama, h100).ok) << decode.legality(halving, llama, h100).reason;
}

// Scores 0 and ln 2 give softmax weights 1/3 and 2/3; the first token of two attends only
// the first position (causal).
TEST(SdpaReference, SmallCasesByHand) {
  const Problem p = sdpa(2, 2, 1, 1, 1);
  ProblemData d;
  d.x = {1.0f, 1.0f};
  d.keys = {0.0f, static_cast<float>(std::log(2.0))};
  d.values = {3.0f, 6.0f};
  const Reference r = reference(p, d);
  ASSERT_EQ(r.values.size(), 2u);
  EXPECT_DOUBLE_EQ(r.values[0], 3.0);
  EXPECT_NEAR(r.values[1], 3.0 / 3 + 6.0 * 2 / 3, 1e-7);  // float ln 2
  EXPECT_GT(r.bounds[1], 5.0);  // sum p |v|, times 1 + 2 max |score| terms
  // GQA: two query heads share the one KV head.
  const Problem g = sdpa(1, 1, 2, 1, 2);
  ProblemData gd{{1.0f, 2.0f, 3.0f, 4.0f}, {}, {}, {}, {}, {1.0f, 1.0f}, {5.0f, 7.0f}};
  const Reference gr = reference(g, gd);
  EXPECT_EQ(gr.values, (std::vector<double>{5.0, 7.0, 5.0, 7.0}));
}

TEST(SdpaReference, RandomInputsHaveTheCacheShape) {
  const Problem p = sdpa(3, 10, 4, 2, 8);
  const ProblemData d = make_random(p, 1);
  EXPECT_EQ(d.x.size(), 3u * 4 * 8);
  EXPECT_EQ(d.keys.size(), 10u * 2 * 8);
  EXPECT_EQ(d.values.size(), d.keys.size());
  EXPECT_EQ(reference(p, d).values.size(), d.x.size());
}

}  // namespace
}  // namespace vktune::kernels
