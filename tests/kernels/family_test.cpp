// Unit tests of the family descriptors: problems, keys, knobs JSON, constraints, legality on
// fake devices, variant counts. No GPU.
#include "kernels/family.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "kernels/families/reference.h"
#include "tests/kernels/fake_devices.h"

namespace vktune::kernels {
namespace {

using test::h100_like;
using test::lavapipe_like;

Problem q4(uint32_t m, uint32_t n, uint32_t k, uint32_t gs, bool bias = false) {
  return {Op("q4gsw"), m, n, k, gs, bias};
}

const Family& family(std::string_view name) {
  const Family* f = find_family(name);
  if (f == nullptr) throw std::runtime_error("no family " + std::string(name));
  return *f;
}

size_t legal_count(const Family& f, const Problem& p, const vk::DeviceInfo& d) {
  size_t n = 0;
  for (const Knobs& k : f.all_variants()) n += f.legality(k, p, d).ok;
  return n;
}

TEST(Problem, ValidateNamesTheValueAndTheFix) {
  EXPECT_EQ(validate(q4(1, 8, 4095, 32)), "K=4095 is odd; q4gsw needs an even K");
  EXPECT_EQ(validate(q4(1, 8, 96, 64)), "K=96 is not a multiple of group_size=64");
  EXPECT_NE(validate(q4(1, 8, 96, 3)).find("group_size=3 is odd"), std::string::npos);
  EXPECT_NE(validate(q4(0, 8, 96, 32)).find("M=0"), std::string::npos);
  EXPECT_NE(validate(q4(1, 0, 96, 32)).find("N=0"), std::string::npos);
  EXPECT_NE(validate(q4(1, 8, 0, 32)).find("K=0"), std::string::npos);
  EXPECT_NE(validate(q4(1, 8, 96, 0)).find("group_size=0"), std::string::npos);
  EXPECT_EQ(validate(q4(1, 8, 96, 32)), "");
  EXPECT_EQ(validate({Op("rms_norm"), 3, 100, 0, 0, false}), "");
  EXPECT_THROW(require_valid(q4(1, 8, 4095, 32)), InvalidProblem);
  EXPECT_THROW(make_random(q4(1, 8, 95, 5), 1), InvalidProblem);
}

TEST(Problem, OpNames) {
  EXPECT_STREQ(op_name(Op("q4gsw")), "q4gsw");
  EXPECT_STREQ(op_name(Op("rms_norm")), "rms_norm");
  EXPECT_EQ(parse_op("rms_norm"), Op("rms_norm"));
  EXPECT_EQ(parse_op("gemm"), std::nullopt);
}

TEST(Knobs, KeyRoundTripsForEveryVariant) {
  size_t total = 0;
  for (const Family* f : families()) {
    for (const Knobs& k : f->all_variants()) {
      const std::string text = f->key(k);
      const ParsedKey parsed = parse_key(text);
      EXPECT_EQ(parsed.family, f->name());
      EXPECT_EQ(parsed.knobs, k) << text;
      EXPECT_EQ(f->key(parsed.knobs), text);
      EXPECT_EQ(f->knobs_from_json(to_json(k)), k) << text;
      ++total;
    }
  }
  EXPECT_GT(total, 100u);
}

TEST(Knobs, KeyFormatMatchesTheContract) {
  const Family& gemv = family("q4gsw_gemv");
  const Knobs k = {{"layout", std::string("raw")}, {"wg", int64_t{128}}, {"rows", int64_t{4}},
                   {"load", std::string("u32x4")}, {"reduce", std::string("subgroup")}};
  EXPECT_EQ(gemv.key(k), "q4gsw_gemv[layout=raw,wg=128,rows=4,load=u32x4,reduce=subgroup]");
  const nlohmann::json j = to_json(k);
  EXPECT_EQ(j["wg"], 128);
  EXPECT_EQ(j["layout"], "raw");
}

TEST(Knobs, BadKeysAndKnobsAreRejected) {
  EXPECT_THROW(parse_key("q4gsw_gemv"), BadKey);
  EXPECT_THROW(parse_key("q4gsw_gemv[wg=]"), BadKey);
  EXPECT_THROW(parse_key("q4gsw_gemv[wg=1,wg=2]"), BadKey);
  EXPECT_THROW(parse_key("[wg=1]"), BadKey);
  EXPECT_NO_THROW(parse_key("rms_norm[]"));
  const Family& norm = family("rms_norm");
  EXPECT_THROW(norm.key({{"vec", int64_t{3}}, {"wg", int64_t{64}}}), BadKey);
  EXPECT_THROW(norm.key({{"wg", int64_t{64}}, {"vec", int64_t{4}}}), BadKey);  // order
  EXPECT_THROW(norm.knobs_from_json(nlohmann::json{{"vec", 4}}), BadKey);
  EXPECT_THROW(norm.knobs_from_json(nlohmann::json{{"vec", 4}, {"wg", 64}, {"x", 1}}), BadKey);
}

TEST(Constraints, AsDataAndChecked) {
  const Family& gemv = family("q4gsw_gemv");
  const Knobs k = parse_key("q4gsw_gemv[layout=raw,wg=64,rows=1,load=u32,reduce=shared]").knobs;
  const nlohmann::json j = to_json(gemv.constraints(k));
  EXPECT_EQ(j, (nlohmann::json{{"k_multiple", 8}, {"gs_multiple", 8}, {"n_multiple", 1},
                               {"m_min", 1}, {"m_max", 8}}));
  EXPECT_EQ(gemv.layout(k), Layout::raw);
  EXPECT_EQ(gemv.workgroup_size(k), 64u);
  EXPECT_NE(check(gemv.constraints(k), q4(9, 8, 64, 32)).find("M=9"), std::string::npos);
  const Knobs packed =
      parse_key("q4gsw_tiled[layout=packed,tm=4,tn=4,wg=64,bk=0]").knobs;
  EXPECT_EQ(family("q4gsw_tiled").layout(packed), Layout::packed);
  EXPECT_EQ(family("rms_norm").layout(parse_key("rms_norm[vec=4,wg=256]").knobs), Layout::none);
}

TEST(Legality, RejectsWithReasons) {
  const vk::DeviceInfo lp = lavapipe_like();
  const Family& gemv = family("q4gsw_gemv");
  const Knobs x4 = parse_key("q4gsw_gemv[layout=raw,wg=64,rows=1,load=u32x4,reduce=shared]").knobs;
  Legality l = gemv.legality(x4, q4(1, 64, 96 + 8, 8), lp);
  EXPECT_FALSE(l.ok);
  EXPECT_NE(l.reason.find("K=104 is not a multiple of 32"), std::string::npos) << l.reason;
  l = gemv.legality(x4, q4(1, 64, 4095, 32), lp);
  EXPECT_EQ(l.reason, "K=4095 is odd; q4gsw needs an even K");
  EXPECT_TRUE(gemv.legality(x4, q4(8, 64, 128, 32), lp).ok);
  EXPECT_FALSE(gemv.legality(x4, q4(9, 64, 128, 32), lp).ok);

  // A weight past one binding: 128256 x 4096 int4 = 262668288 bytes > 128 MiB on lavapipe
  // (128256 x 2048 is 131334144 bytes: it still fits).
  EXPECT_TRUE(gemv.legality(x4, q4(1, 128256, 2048, 32), lp).ok);
  l = gemv.legality(x4, q4(1, 128256, 4096, 32), lp);
  EXPECT_FALSE(l.ok);
  EXPECT_NE(l.reason.find("weight"), std::string::npos) << l.reason;
  EXPECT_NE(l.reason.find("262668288"), std::string::npos) << l.reason;
  EXPECT_NE(l.reason.find("134217728"), std::string::npos) << l.reason;
  EXPECT_NE(l.reason.find("maxStorageBufferRange"), std::string::npos) << l.reason;
  EXPECT_TRUE(gemv.legality(x4, q4(1, 128256, 4096, 32), h100_like()).ok);

  // Subgroup reduction needs whole subgroups per output.
  const Knobs sg = parse_key("q4gsw_gemv[layout=raw,wg=32,rows=8,load=u32,reduce=subgroup]").knobs;
  l = gemv.legality(sg, q4(1, 64, 64, 32), lp);
  EXPECT_FALSE(l.ok);
  EXPECT_NE(l.reason.find("subgroup size 8"), std::string::npos) << l.reason;
  vk::DeviceInfo no_arith = lp;
  no_arith.features.subgroup_arithmetic = false;
  const Knobs sg1 = parse_key("q4gsw_gemv[layout=raw,wg=64,rows=1,load=u32,reduce=subgroup]").knobs;
  EXPECT_TRUE(gemv.legality(sg1, q4(1, 64, 64, 32), lp).ok);
  EXPECT_FALSE(gemv.legality(sg1, q4(1, 64, 64, 32), no_arith).ok);

  // Shared memory.
  const Family& tiled = family("q4gsw_tiled");
  const Knobs big = parse_key("q4gsw_tiled[layout=raw,tm=8,tn=8,wg=256,bk=64]").knobs;
  l = tiled.legality(big, q4(64, 64, 64, 32), lp);
  EXPECT_FALSE(l.ok);
  EXPECT_NE(l.reason.find("32768"), std::string::npos) << l.reason;

  // Cooperative matrix: never on lavapipe, yes on an H100-like device.
  const Family& cm = family("q4gsw_coopmat");
  const Knobs c = parse_key("q4gsw_coopmat[bm=64,bn=64,bk=32,sg=4,buf=2]").knobs;
  l = cm.legality(c, q4(128, 4096, 4096, 32), lp);
  EXPECT_FALSE(l.ok);
  EXPECT_NE(l.reason.find("shaderFloat16, which q4gsw_coopmat needs"), std::string::npos) << l.reason;
  vk::DeviceInfo lp_fp16 = lp;
  lp_fp16.features.shader_float16 = true;
  l = cm.legality(c, q4(128, 4096, 4096, 32), lp_fp16);
  EXPECT_NE(l.reason.find("cooperative_matrix"), std::string::npos) << l.reason;
  EXPECT_TRUE(cm.legality(c, q4(128, 4096, 4096, 32), h100_like()).ok);
  EXPECT_TRUE(cm.legality(c, q4(3, 37, 64, 32), h100_like()).ok);

  // Wrong op.
  EXPECT_FALSE(family("rms_norm").legality(parse_key("rms_norm[vec=4,wg=256]").knobs,
                                           q4(1, 64, 64, 32), lp).ok);
  EXPECT_FALSE(family("rms_norm").legality(parse_key("rms_norm[vec=4,wg=256]").knobs,
                                           {Op("rms_norm"), 2, 37, 0, 0, false}, lp).ok);
}

// An f16 instance serves f16 problems only, and only on a device with 16-bit storage; a layout
// the family does not offer is a bad knob, with the list of those it does.
TEST(Legality, DtypeMatchesAndF16NeedsSixteenBitStorage) {
  const vk::DeviceInfo lp = lavapipe_like();
  const Family& gemv = family("q4gsw_gemv");
  const Family& gemv16 = family("q4gsw_gemv_f16");
  EXPECT_EQ(gemv16.dtype(), DType::f16);
  const Knobs k = parse_key("q4gsw_gemv[layout=raw,wg=64,rows=1,load=u32,reduce=shared]").knobs;
  Problem p16 = q4(1, 64, 128, 32);
  p16.dtype = DType::f16;
  EXPECT_TRUE(gemv16.legality(k, p16, lp).ok);
  EXPECT_EQ(gemv.legality(k, p16, lp).reason, "q4gsw_gemv computes f32 problems, not f16");
  EXPECT_EQ(gemv16.legality(k, q4(1, 64, 128, 32), lp).reason,
            "q4gsw_gemv_f16 computes f16 problems, not f32");
  vk::DeviceInfo no16 = lp;
  no16.features.storage_16bit = false;
  EXPECT_EQ(gemv16.legality(k, p16, no16).reason,
            "llvmpipe (fake) lacks storageBuffer16BitAccess, which q4gsw_gemv_f16 needs for its "
            "fp16 tensors");
  EXPECT_TRUE(gemv.legality(k, q4(1, 64, 128, 32), no16).ok);  // f32 needs none of it

  Knobs interleaved = k;
  interleaved[0].value = KnobValue(std::string("interleaved"));
  EXPECT_EQ(gemv16.legality(interleaved, p16, lp).reason,
            "q4gsw_gemv_f16: layout=interleaved is not one of {raw, packed, packed_s16}");

  // Same key, same knobs, its own shader: F16 set for the f16 instance only.
  EXPECT_EQ(gemv16.key(k), "q4gsw_gemv_f16[layout=raw,wg=64,rows=1,load=u32,reduce=shared]");
  const auto has_f16 = [](const ShaderSpec& s) {
    return std::find(s.defines.begin(), s.defines.end(),
                     std::pair<std::string, std::string>{"F16", "1"}) != s.defines.end();
  };
  EXPECT_TRUE(has_f16(gemv16.shader(k)));
  EXPECT_FALSE(has_f16(gemv.shader(k)));
  EXPECT_EQ(gemv16.shader(k).file, gemv.shader(k).file);
  // The output's rounding to fp16 widens the gate's tolerance by 2^-11 of the bound.
  EXPECT_DOUBLE_EQ(gemv16.tolerance(p16) - gemv.tolerance(q4(1, 64, 128, 32)), 0x1p-11);
}

// packed_s16: whole 32-nibble blocks under one scale, the scales in the weight buffer, and
// (read as u32 + unpackHalf2x16) no 16-bit storage needed.
TEST(Legality, PackedS16) {
  const Family& gemv = family("q4gsw_gemv");
  const Knobs k =
      parse_key("q4gsw_gemv[layout=packed_s16,wg=64,rows=2,load=u32,reduce=shared]").knobs;
  EXPECT_EQ(gemv.layout(k), Layout::packed_s16);
  EXPECT_EQ(gemv.constraints(k).gs_multiple, 32u);
  EXPECT_EQ(gemv.legality(k, q4(1, 64, 128, 16), lavapipe_like()).reason,
            "group_size=16 is not a multiple of 32 (gs_multiple)");
  vk::DeviceInfo no16 = lavapipe_like();
  no16.features.storage_16bit = false;
  EXPECT_TRUE(gemv.legality(k, q4(1, 37, 128, 64), no16).ok);
  const BindingSizes s = binding_sizes(q4(1, 37, 128, 64), Layout::packed_s16);
  EXPECT_EQ(s.scales, 0u);
  EXPECT_EQ(s.weight, 2u * 5 * 17 * 16);  // 2 groups x 5 octets x (16 blocks + scales) x 16
  EXPECT_EQ(layout_from_name("packed_s16"), Layout::packed_s16);
  EXPECT_EQ(layout_from_name("tiles"), std::nullopt);
  // The subgroup reduction needs one output's lanes together, as for packed.
  EXPECT_FALSE(gemv.legality(parse_key("q4gsw_gemv[layout=packed_s16,wg=64,rows=2,load=u32,"
                                       "reduce=subgroup]").knobs,
                             q4(1, 64, 128, 32), lavapipe_like()).ok);
}

// f16 problems: every float tensor in 2-byte elements; the int4 weight is unchanged.
TEST(Problem, F16BindingSizesAndNames) {
  Problem p = q4(3, 100, 64, 32, true);
  const BindingSizes f32 = binding_sizes(p, Layout::raw);
  p.dtype = DType::f16;
  const BindingSizes f16 = binding_sizes(p, Layout::raw);
  EXPECT_EQ(f16.x, 3u * 64 * 2);
  EXPECT_EQ(f16.scales, 2u * 100 * 2);
  EXPECT_EQ(f16.bias, 100u * 2);
  EXPECT_EQ(f16.out, 3u * 100 * 2);
  EXPECT_EQ(f16.weight, f32.weight);
  EXPECT_EQ(describe(p), "q4gsw M=3 N=100 K=64 gs=32 bias f16");
  EXPECT_EQ(parse_dtype("f16"), DType::f16);
  EXPECT_EQ(parse_dtype("f32"), DType::f32);
  EXPECT_EQ(parse_dtype("bf16"), std::nullopt);
  EXPECT_STREQ(dtype_name(DType::f16), "f16");
}

TEST(Legality, WorkgroupCountIsClampedNotRejected) {
  vk::DeviceInfo lp = lavapipe_like();
  lp.limits.max_workgroup_count = {1000, 1, 1};
  const Family& naive = family("q4gsw_naive");
  const Knobs k = parse_key("q4gsw_naive[wg=64]").knobs;
  EXPECT_TRUE(naive.legality(k, q4(5000, 8, 64, 32), lp).ok);
  EXPECT_EQ(naive.groups(k, q4(5000, 8, 64, 32), lp)[0], 1000u);
}

TEST(Variants, CountsOnLavapipe) {
  const vk::DeviceInfo lp = lavapipe_like();
  for (const Family* f : families()) {
    if (f->op() != Op("q4gsw")) continue;
    Problem one = q4(1, 4096, 4096, 32), many = q4(128, 4096, 4096, 32);  // in f's dtype
    one.dtype = many.dtype = f->dtype();
    const size_t decode = legal_count(*f, one, lp);
    const size_t prefill = legal_count(*f, many, lp);
    std::printf("%-14s variants %3zu  legal M=1: %3zu  M=128: %3zu  (H100-like M=128: %zu)\n",
                f->name().c_str(), f->all_variants().size(), decode, prefill,
                legal_count(*f, many, h100_like()));
    // The tiles through GL_KHR_cooperative_matrix or GL_NV_cooperative_matrix2 need the newer
    // compiler, whatever their name says.
    const bool newer_compiler = f->requirements(f->all_variants().front()).compiler != 0;
    if (f->name().starts_with("q4gsw_coopmat") && newer_compiler) {
      EXPECT_EQ(decode, 0u);  // no cooperative matrix 2 or KHR here, nor in the default compiler
      EXPECT_EQ(legal_count(*f, many, h100_like()), 0u);
    } else if (f->name().starts_with("q4gsw_coopmat")) {
      EXPECT_EQ(decode, 0u);
      EXPECT_GT(legal_count(*f, many, h100_like()), 10u);
    } else if (f->name().starts_with("q4gsw_gemv_i8dot")) {
      EXPECT_EQ(decode, 0u);  // the default compiler (Debian 12's) lacks integer dot products
    } else {
      EXPECT_GT(decode, 0u) << f->name();
    }
  }
  EXPECT_EQ(legal_count(family("q4gsw_gemv"), q4(128, 4096, 4096, 32), lp), 0u);
}


TEST(GemvFast, VariantCountsAndConstraints) {
  const Family& fast = family("q4gsw_gemv_fast");
  // M=1: wg in {64..1024} x ksplit in {1..32} with wg/ksplit a multiple of the subgroup
  // size (H100: 20 pairs, lavapipe with subgroup 8: 27) x npl 3 x unroll 3; mmax has exactly
  // one legal value per M.
  for (uint32_t gs : {32u, 128u}) {
    EXPECT_EQ(legal_count(fast, q4(1, 4096, 4096, gs), h100_like()), 180u) << "gs=" << gs;
  }
  EXPECT_EQ(legal_count(fast, q4(1, 4096, 4096, 32), lavapipe_like()), 243u);
  // npl * unroll * mmax <= 16: mmax 2 drops npl=unroll=4, mmax 4 keeps 6 pairs, mmax 8 keeps 3;
  // and the slices' exchange, npl * mmax * wg floats, must fit 48 KiB of shared memory: at
  // wg 1024 with ksplit > 1 npl * mmax is at most 8 (mmax 4 loses npl 4, mmax 8 loses npl 2).
  EXPECT_EQ(legal_count(fast, q4(2, 4096, 4096, 32), h100_like()), 160u);
  EXPECT_EQ(legal_count(fast, q4(3, 4096, 4096, 32), h100_like()), 115u);
  EXPECT_EQ(legal_count(fast, q4(8, 4096, 4096, 32), h100_like()), 55u);
  EXPECT_EQ(legal_count(fast, q4(9, 4096, 4096, 32), h100_like()), 0u);
  EXPECT_EQ(legal_count(fast, q4(1, 4096, 4096 + 16, 16), h100_like()), 0u);  // K, gs % 32

  const Knobs k = parse_key("q4gsw_gemv_fast[wg=128,ksplit=2,npl=2,unroll=2,mmax=4]").knobs;
  EXPECT_EQ(to_json(fast.constraints(k)),
            (nlohmann::json{{"k_multiple", 32}, {"gs_multiple", 32}, {"n_multiple", 1},
                            {"m_min", 3}, {"m_max", 4}}));
  EXPECT_EQ(fast.layout(k), Layout::packed);
  EXPECT_EQ(fast.shared_bytes(k), 2u * 4 * 128 * 4);
  EXPECT_EQ(fast.groups(k, q4(3, 4096, 4096, 32), h100_like())[0], 4096u / 128);
  EXPECT_EQ(fast.groups(k, q4(3, 4097, 4096, 32), h100_like())[0], 4096u / 128 + 1);
  EXPECT_NE(fast.legality(k, q4(2, 64, 64, 32), h100_like()).reason.find("m_min=3"),
            std::string::npos);
  const Knobs one = parse_key("q4gsw_gemv_fast[wg=64,ksplit=1,npl=1,unroll=1,mmax=1]").knobs;
  EXPECT_EQ(fast.shared_bytes(one), 0u);
  EXPECT_NE(fast.legality(one, q4(2, 64, 64, 32), h100_like()).reason.find("m_max=1"),
            std::string::npos);

  const Knobs big = parse_key("q4gsw_gemv_fast[wg=128,ksplit=2,npl=2,unroll=4,mmax=4]").knobs;
  EXPECT_NE(fast.legality(big, q4(4, 64, 64, 32), h100_like()).reason.find("exceeds 16"),
            std::string::npos);

  // A subgroup must share one K slice: 64 / 4 = 16 lanes along n splits a 32-wide subgroup.
  const Knobs split = parse_key("q4gsw_gemv_fast[wg=64,ksplit=4,npl=1,unroll=1,mmax=1]").knobs;
  const Legality l = fast.legality(split, q4(1, 64, 64, 32), h100_like());
  EXPECT_FALSE(l.ok);
  EXPECT_NE(l.reason.find("subgroup size 32"), std::string::npos) << l.reason;
  EXPECT_TRUE(fast.legality(split, q4(1, 64, 64, 32), lavapipe_like()).ok);
}

TEST(Coopmat, GeometryConstraintsAndLegality) {
  const Family& cm = family("q4gsw_coopmat");
  const vk::DeviceInfo h100 = h100_like();
  const auto knobs = [](const char* key) { return parse_key(key).knobs; };
  // The squarest subgroup tile: 128x128 over 8 subgroups is 4 x 2 subgroups of 32x64.
  const Knobs big = knobs("q4gsw_coopmat[bm=128,bn=128,bk=64,sg=8,buf=2]");
  // The sizes are specialisation constants (WG, BM, BN, BK, SG, WN, SPLITK); BUF shapes the code.
  EXPECT_EQ(cm.shader(big).defines, (Defines{{"BUF", "2"}}));
  EXPECT_EQ(cm.shader(big).specialization,
            (Specialization{{0, 256}, {1, 128}, {2, 128}, {3, 64}, {4, 8}, {5, 2}, {6, 1}}));
  EXPECT_EQ(cm.shader(knobs("q4gsw_coopmat[bm=32,bn=256,bk=32,sg=8,buf=1]")).specialization.at(5),
            (SpecConstant{5, 8}));
  EXPECT_EQ(cm.workgroup_size(big), 256u);
  EXPECT_EQ(cm.shared_bytes(big), (128u + 128u) * (64u + 8u) * 2u);
  EXPECT_EQ(cm.groups(big, q4(512, 4096, 4096, 32), h100), (std::array<uint32_t, 3>{128, 1, 1}));
  EXPECT_EQ(cm.groups(big, q4(33, 37, 64, 32), h100), (std::array<uint32_t, 3>{1, 1, 1}));

  // One uvec4 of 32 nibbles shares one scale: K and gs multiples of 32.
  EXPECT_EQ(to_json(cm.constraints(big)),
            (nlohmann::json{{"k_multiple", 32}, {"gs_multiple", 32}, {"n_multiple", 1},
                            {"m_min", 1}, {"m_max", 0}}));
  Legality l = cm.legality(big, q4(128, 4096, 4104, 8), h100);
  EXPECT_FALSE(l.ok);
  EXPECT_NE(l.reason.find("32"), std::string::npos) << l.reason;
  EXPECT_TRUE(cm.legality(big, q4(128, 4096, 4096, 128), h100).ok);
  EXPECT_TRUE(cm.legality(big, q4(3, 37, 96, 96), h100).ok);  // K not a multiple of bk

  // Shared memory: 128x256 at bk=64 needs 55296 bytes > 48 KiB; at bk=32 it fits.
  l = cm.legality(knobs("q4gsw_coopmat[bm=128,bn=256,bk=64,sg=8,buf=2]"), q4(512, 4096, 4096, 32),
                  h100);
  EXPECT_FALSE(l.ok);
  EXPECT_NE(l.reason.find("55296"), std::string::npos) << l.reason;
  EXPECT_TRUE(cm.legality(knobs("q4gsw_coopmat[bm=128,bn=256,bk=32,sg=8,buf=2]"),
                          q4(512, 4096, 4096, 32), h100).ok);

  // Combinations: too few or too many accumulator tiles per subgroup, or no whole split.
  l = cm.legality(knobs("q4gsw_coopmat[bm=32,bn=32,bk=32,sg=4,buf=2]"), q4(128, 64, 64, 32), h100);
  EXPECT_NE(l.reason.find("below 4"), std::string::npos) << l.reason;
  l = cm.legality(knobs("q4gsw_coopmat[bm=128,bn=256,bk=32,sg=4,buf=2]"), q4(128, 64, 64, 32),
                  h100);
  EXPECT_NE(l.reason.find("exceed 16"), std::string::npos) << l.reason;
  l = cm.legality(knobs("q4gsw_coopmat[bm=32,bn=32,bk=32,sg=8,buf=2]"), q4(128, 64, 64, 32), h100);
  EXPECT_NE(l.reason.find("does not split"), std::string::npos) << l.reason;

  // buf=3 doubles the staging: 128x128 at bk=64 no longer fits, at bk=32 it does.
  const Knobs staged = knobs("q4gsw_coopmat[bm=128,bn=128,bk=32,sg=8,buf=3]");
  EXPECT_EQ(cm.shared_bytes(staged), 2u * (128u + 128u) * (32u + 8u) * 2u);
  EXPECT_TRUE(cm.legality(staged, q4(512, 4096, 4096, 32), h100).ok);
  l = cm.legality(knobs("q4gsw_coopmat[bm=128,bn=128,bk=64,sg=8,buf=3]"), q4(512, 4096, 4096, 32),
                  h100);
  EXPECT_NE(l.reason.find("73728"), std::string::npos) << l.reason;
  EXPECT_EQ(cm.workspace_bytes(big, q4(512, 4096, 4096, 32)), 0u);

  // bn=512 fits 48 KiB beside bm=64 at bk=32 (46080 bytes), not at bk=64 (78336 with bm=32).
  EXPECT_TRUE(cm.legality(knobs("q4gsw_coopmat[bm=64,bn=512,bk=32,sg=8,buf=4]"),
                          q4(512, 4096, 4096, 32), h100).ok);
  l = cm.legality(knobs("q4gsw_coopmat[bm=32,bn=512,bk=64,sg=8,buf=2]"), q4(512, 4096, 4096, 32),
                  h100);
  EXPECT_NE(l.reason.find("78336"), std::string::npos) << l.reason;

  // sg=16: 512 invocations, 128x128 as 4 x 4 subgroups of 32x32; 64x128 would leave each
  // subgroup 2 accumulator tiles.
  const Knobs wide = knobs("q4gsw_coopmat[bm=128,bn=128,bk=64,sg=16,buf=4]");
  EXPECT_EQ(cm.workgroup_size(wide), 512u);
  EXPECT_EQ(cm.shader(wide).specialization.at(5), (SpecConstant{5, 4}));
  EXPECT_TRUE(cm.legality(wide, q4(512, 4096, 4096, 32), h100).ok);
  l = cm.legality(knobs("q4gsw_coopmat[bm=64,bn=128,bk=64,sg=16,buf=2]"), q4(512, 4096, 4096, 32),
                  h100);
  EXPECT_NE(l.reason.find("below 4"), std::string::npos) << l.reason;

  // A modest sweep for prefill on an H100, whatever the group size.
  for (uint32_t gs : {32u, 128u}) {
    const size_t n = legal_count(cm, q4(128, 4096, 4096, gs), h100);
    EXPECT_GE(n, 100u) << gs;
    EXPECT_LE(n, 140u) << gs;
  }
}

TEST(CoopmatSplitK, WorkspaceGroupsAndWhenASplitPays) {
  const Family& split = family("q4gsw_coopmat_splitk");
  const vk::DeviceInfo h100 = h100_like();
  const Knobs k = parse_key("q4gsw_coopmat_splitk[bm=128,bn=128,bk=64,sg=8,buf=2,splitk=4]").knobs;
  EXPECT_EQ(split.shader(k).defines.back(), (std::pair<std::string, std::string>{"SPLIT", "1"}));
  EXPECT_EQ(split.shader(k).specialization.back(), (SpecConstant{6, 4}));
  // M=128 N=4096: 32 output tiles, 4 slices each; a counter per tile, then 4 partials each.
  const Problem prefill = q4(128, 4096, 4096, 32);
  EXPECT_EQ(split.groups(k, prefill, h100), (std::array<uint32_t, 3>{128, 1, 1}));
  EXPECT_EQ(split.workspace_bytes(k, prefill), (32u + 4u * 32u * 128u * 128u) * 4u);
  // 5 tiles: 16 counter words keep the partials 64-byte aligned.
  EXPECT_EQ(split.workspace_bytes(k, q4(128, 640, 4096, 32)), (16u + 4u * 5u * 128u * 128u) * 4u);
  EXPECT_EQ(split.shared_bytes(k), (128u + 128u) * (64u + 8u) * 2u + 4u);  // + last_slice
  EXPECT_TRUE(split.legality(k, prefill, h100).ok);

  // Enough output tiles to fill the GPU: no split.
  Legality l = split.legality(k, q4(512, 128256, 4096, 32), h100);
  EXPECT_NE(l.reason.find("fill the GPU"), std::string::npos) << l.reason;
  // K=256 is 4 k-steps of 64: too few for 4 slices of at least 2 (7 full steps and one more K).
  EXPECT_EQ(split.constraints(k).k_min, 7u * 64u + 1u);
  l = split.legality(k, q4(128, 4096, 256, 32), h100);
  EXPECT_NE(l.reason.find("below this variant's k_min=449"), std::string::npos) << l.reason;
  EXPECT_TRUE(split.legality(k, q4(128, 4096, 480, 32), h100).ok);  // 8 steps, the last partial
  // lavapipe has no cooperative matrix, and its 128 MiB binding limit applies to the workspace.
  EXPECT_FALSE(split.legality(k, prefill, lavapipe_like()).ok);
  vk::DeviceInfo small = h100;
  small.limits.max_storage_buffer_range = 4096u * 4096u / 2u;  // the weight fits, 4 partials do not
  l = split.legality(k, prefill, small);
  EXPECT_NE(l.reason.find("workspace"), std::string::npos) << l.reason;
}

// Every family that tiles the output names its tile and its slices, what its groups() counts: a
// workgroup per tile and slice of K; the GEMVs, rms_norm and attention compute only real outputs.
// Which families tile their output, and their splits' slices. That the tiles launch what the
// families dispatch: output_grid_test.cpp.
TEST(OutputTile, TiledFamiliesNameTheirTile) {
  size_t tiled = 0;
  for (const Family* f : families()) {
    const bool tiles = f->name().starts_with("q4gsw_coopmat") ||
                       f->name().starts_with("q4gsw_tiled") ||
                       f->name().starts_with("sdpa_decode") || f->name().starts_with("sdpa_flash");
    for (const Knobs& k : f->all_variants()) {
      const OutputTile t = f->output_tile(k);
      if (!tiles) {
        EXPECT_EQ(t, OutputTile{}) << f->key(k);
        continue;
      }
      ASSERT_GT(t.m, 0u) << f->key(k);
      ASSERT_GT(t.n, 0u) << f->key(k);
      const auto slices = std::find_if(k.begin(), k.end(), [](const Knob& knob) {
        return knob.name == "splitk" || knob.name == "splits";
      });
      const uint64_t per_tile = slices == k.end() ? 1 : std::get<int64_t>(slices->value);
      EXPECT_EQ(t.slices, per_tile) << f->key(k);
      EXPECT_EQ(t.workgroups(160, 9000), t.count(160, 9000) * per_tile);
      ++tiled;
    }
  }
  EXPECT_GT(tiled, 1000u);
  const OutputTile t{128, 256};
  EXPECT_EQ(t.count(160, 9216), 2u * 36u);
  EXPECT_DOUBLE_EQ(t.log_useful_share(160, 9216), std::log(160.0 / 256.0));
  EXPECT_DOUBLE_EQ(t.log_useful_share(256, 9000), std::log(9000.0 / 9216.0));
  EXPECT_EQ(t.log_useful_share(384, 9216), 0.0);
  EXPECT_EQ((OutputTile{128, 256, 4}.workgroups(160, 9216)), 4u * 2u * 36u);
  EXPECT_EQ(OutputTile{}.count(7, 9), 1u);
  EXPECT_EQ(OutputTile{}.log_useful_share(7, 9), 0.0);
}

// The tuner's legality and the runtime's predicate are one rule: a variant that splits K is legal
// on a problem only where OutputTile::split_allowed holds for its split_tile(). Each split variant
// is taken at the M it runs (legal at N=256, one tile) and asked again at N=131072, where the
// tensor-core tiles have thousands of tiles and a GEMV's 512 outputs a workgroup have 256.
TEST(OutputTile, ASplitIsLegalOnlyWhereItsTilesLeaveTheGpuRoom) {
  const vk::DeviceInfo h100 = h100_like();
  // Legality as with the newer compiler, whichever one is linked.
  const CompilerSupport newer = CompilerSupport{}
                                    .add(GlslExtension::integer_dot_product)
                                    .add(GlslExtension::cooperative_matrix_khr)
                                    .add(GlslExtension::cooperative_matrix2_nv);
  size_t allowed = 0, refused = 0, gemvs = 0;
  for (const Family* f : families()) {
    for (const Knobs& k : f->all_variants()) {
      const OutputTile t = f->split_tile(k);
      if (t.slices <= 1) continue;
      for (const uint32_t m : {1u, 8u, 64u, 1024u}) {
        if (!f->legality(k, q4(m, 256, 4096, 32), h100, newer).ok) continue;
        const Legality l = f->legality(k, q4(m, 131072, 4096, 32), h100, newer);
        EXPECT_EQ(l.ok, t.split_allowed(m, 131072)) << f->key(k) << " M=" << m << ": " << l.reason;
        ++(l.ok ? allowed : refused);
        gemvs += t.m == 0 ? 1 : 0;
      }
    }
  }
  EXPECT_GT(allowed, 10u);
  EXPECT_GT(refused, 100u);
  EXPECT_GT(gemvs, 10u);
  EXPECT_TRUE((OutputTile{64, 128, 2}.split_allowed(256, 16384)));
  EXPECT_FALSE((OutputTile{64, 128, 2}.split_allowed(257, 16384)));
  EXPECT_TRUE((OutputTile{64, 128, 1}.split_allowed(4096, 16384)));
  // The split GEMV's tile is its workgroup's outputs along N, every row in one; unsplit, none.
  const Family& gemv = family("q4gsw_gemv_i8dot_splitk");
  const Knobs k =
      parse_key("q4gsw_gemv_i8dot_splitk[wg=512,ksplit=2,npl=2,unroll=2,mmax=8,slices=4]").knobs;
  EXPECT_EQ(gemv.split_tile(k), (OutputTile{0, 512, 4}));
  EXPECT_EQ(gemv.output_tile(k), OutputTile{});
  EXPECT_EQ(family("q4gsw_gemv_i8dot").split_tile(
                parse_key("q4gsw_gemv_i8dot[wg=512,ksplit=2,npl=2,unroll=2,mmax=8]").knobs),
            OutputTile{});
}

TEST(GemvI8DotSplitK, WorkspaceGroupsAndWhenASplitPays) {
  const Family& split = family("q4gsw_gemv_i8dot_splitk_s16");
  const vk::DeviceInfo h100 = h100_like();
  const Knobs k =
      parse_key("q4gsw_gemv_i8dot_splitk_s16[wg=1024,ksplit=2,npl=1,unroll=2,mmax=1,slices=4]")
          .knobs;
  const ShaderSpec spec = split.shader(k);
  EXPECT_NE(std::ranges::find(spec.defines, std::pair<std::string, std::string>{"SLICED", "1"}),
            spec.defines.end());
  EXPECT_EQ(spec.specialization.back(), (SpecConstant{5, 4}));
  EXPECT_EQ(split.layout(k), Layout::packed_s16);
  // M=1 N=16384: tiles of 1024 / 2 = 512 outputs, 32 of them, 4 slices each; a counter per tile
  // (16 words), then 4 partials of 512.
  const Problem decode = q4(1, 16384, 16384, 32);
  EXPECT_EQ(split.groups(k, decode, h100), (std::array<uint32_t, 3>{128, 1, 1}));
  EXPECT_EQ(split.workspace_bytes(k, decode), (32u + 4u * 32u * 512u) * 4u);
  const Knobs whole = parse_key("q4gsw_gemv_i8dot_s16[wg=1024,ksplit=2,npl=1,unroll=2,mmax=1]").knobs;
  const Family& unsplit = family("q4gsw_gemv_i8dot_s16");
  EXPECT_EQ(unsplit.workspace_bytes(whole, decode), 0u);
  EXPECT_EQ(split.shared_bytes(k), unsplit.shared_bytes(whole) + 4u);  // + last_slice
  EXPECT_EQ(unsplit.groups(whole, decode, h100), (std::array<uint32_t, 3>{32, 1, 1}));
  // Legality as with the newer compiler, whichever one is linked.
  const CompilerSupport newer = CompilerSupport{}.add(GlslExtension::integer_dot_product);
  EXPECT_TRUE(split.legality(k, decode, h100, newer).ok) << split.legality(k, decode, h100, newer).reason;
  // lm_head: 1002 tiles of 128 fill the GPU already.
  const Knobs narrow =
      parse_key("q4gsw_gemv_i8dot_splitk_s16[wg=1024,ksplit=8,npl=1,unroll=2,mmax=1,slices=2]")
          .knobs;
  Legality l = split.legality(narrow, q4(1, 128256, 4096, 32), h100, newer);
  EXPECT_NE(l.reason.find("fill the GPU"), std::string::npos) << l.reason;
  // A k-step of 32 * 8 * 2 = 512: 4 slices of at least 2 need K >= 4096, a constraint the
  // runtime sees (k_min in the stored constraints), so its ranking never offers the split there.
  const Knobs four = parse_key("q4gsw_gemv_i8dot_splitk_s16[wg=1024,ksplit=8,npl=1,unroll=2,"
                               "mmax=1,slices=4]")
                         .knobs;
  EXPECT_EQ(split.constraints(four).k_min, 4096u);
  EXPECT_EQ(to_json(split.constraints(four)).value("k_min", 0u), 4096u);
  EXPECT_FALSE(to_json(unsplit.constraints(whole)).contains("k_min"));
  l = split.legality(four, q4(1, 4096, 2048, 32), h100, newer);
  EXPECT_NE(l.reason.find("K=2048 is below this variant's k_min=4096"), std::string::npos)
      << l.reason;
  EXPECT_TRUE(split.legality(four, q4(1, 4096, 4096, 32), h100, newer).ok);
}

}  // namespace
}  // namespace vktune::kernels
