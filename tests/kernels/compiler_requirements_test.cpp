// Families that need GLSL extensions of a newer shader compiler: refused by legality with the
// reason (before any device check), reported unavailable as a whole, and q4gsw_gemv_i8dot's
// descriptor (variants, shared memory, tolerance). Fake devices and compilers; no GPU.
#include <gtest/gtest.h>

#include <cmath>

#include "kernels/compiler_support.h"
#include "kernels/families/reference.h"
#include "tests/kernels/fake_devices.h"
#include "kernels/family.h"
#include "kernels/requirements.h"

namespace vktune::kernels {
namespace {

using test::lavapipe_like;
using test::newer_compiler;

Problem q4(uint32_t m, uint32_t n, uint32_t k, uint32_t gs) { return {Op("q4gsw"), m, n, k, gs}; }

const Family& i8dot() { return *find_family("q4gsw_gemv_i8dot"); }
const Knobs& one_variant() {
  static const Knobs k = parse_key("q4gsw_gemv_i8dot[wg=128,ksplit=2,npl=1,unroll=2,mmax=1]").knobs;
  return k;
}

size_t legal_count(const Family& f, const Problem& p, const vk::DeviceInfo& d,
                   const CompilerSupport& c) {
  size_t n = 0;
  for (const Knobs& k : f.all_variants()) n += f.legality(k, p, d, c).ok;
  return n;
}

TEST(CompilerRequirements, CheckNamesTheExtensionAndTheFix) {
  Requirements r;
  EXPECT_EQ(check(r, CompilerSupport{}, "f"), "");
  r.add(GlslExtension::cooperative_matrix2_nv);
  EXPECT_TRUE(r.needs(GlslExtension::cooperative_matrix2_nv));
  EXPECT_FALSE(r.needs(GlslExtension::integer_dot_product));
  EXPECT_EQ(check(r, CompilerSupport{}, "f"),
            "f needs a shader compiler that accepts GL_NV_cooperative_matrix2, which the linked "
            "shaderc does not; build the newer one with tools/setup-newer-shaderc.sh and "
            "configure with -DVKTUNE_SHADERC_PREFIX=<its prefix>");
  CompilerSupport c;
  c.add(GlslExtension::integer_dot_product);
  EXPECT_NE(check(r, c, "f"), "");
  c.add(GlslExtension::cooperative_matrix2_nv);
  EXPECT_EQ(check(r, c, "f"), "");
  // Compiler requirements are no device features: an engine enables none for them.
  EXPECT_TRUE(feature_names(r).empty());
}

TEST(CompilerRequirements, LegalityRefusesForTheCompilerFirstThenTheDevice) {
  const Problem p = q4(1, 4096, 4096, 32);
  vk::DeviceInfo no_dot = lavapipe_like();
  no_dot.features.shader_integer_dot_product = false;
  // Debian 12's compiler (the default): the reason is the compiler, on any device.
  for (const vk::DeviceInfo& d : {lavapipe_like(), no_dot}) {
    const Legality l = i8dot().legality(one_variant(), p, d);
    EXPECT_FALSE(l.ok);
    EXPECT_EQ(l.reason.rfind("q4gsw_gemv_i8dot needs a shader compiler that accepts "
                             "GL_EXT_integer_dot_product, which the linked shaderc does not; "
                             "build the newer one with tools/setup-newer-shaderc.sh",
                             0),
              0u)
        << l.reason;
  }
  // The newer compiler: then the device's feature decides.
  EXPECT_EQ(i8dot().legality(one_variant(), p, no_dot, newer_compiler()).reason,
            "llvmpipe (fake) lacks shaderIntegerDotProduct, which q4gsw_gemv_i8dot needs for its "
            "int8 dot products");
  EXPECT_TRUE(i8dot().legality(one_variant(), p, lavapipe_like(), newer_compiler()).ok);
  // Families that need no extension do not care which compiler.
  const Family& fast = *find_family("q4gsw_gemv_fast");
  const Knobs k = parse_key("q4gsw_gemv_fast[wg=64,ksplit=1,npl=1,unroll=1,mmax=1]").knobs;
  EXPECT_TRUE(fast.legality(k, p, lavapipe_like()).ok);
  EXPECT_TRUE(fast.legality(k, p, lavapipe_like(), newer_compiler()).ok);
}

TEST(CompilerRequirements, UnavailableReasonIsTheFamilysWhateverTheProblem) {
  EXPECT_NE(i8dot().unavailable_reason(lavapipe_like()).find("GL_EXT_integer_dot_product"),
            std::string::npos);
  EXPECT_NE(find_family("q4gsw_gemv_i8dot_f16")
                ->unavailable_reason(lavapipe_like())
                .find("q4gsw_gemv_i8dot_f16 needs a shader compiler"),
            std::string::npos);
  EXPECT_EQ(i8dot().unavailable_reason(lavapipe_like(), newer_compiler()), "");
  vk::DeviceInfo no_dot = lavapipe_like();
  no_dot.features.shader_integer_dot_product = false;
  EXPECT_NE(
      i8dot().unavailable_reason(no_dot, newer_compiler()).find("lacks shaderIntegerDotProduct"),
      std::string::npos);
  EXPECT_EQ(find_family("q4gsw_gemv_fast")->unavailable_reason(lavapipe_like()), "");
  // Cooperative matrix on lavapipe: a device reason, as before.
  EXPECT_NE(find_family("q4gsw_coopmat")->unavailable_reason(lavapipe_like()).find("lacks"),
            std::string::npos);
}

TEST(GemvI8Dot, VariantsConstraintsAndSharedMemory) {
  const Family& f = i8dot();
  EXPECT_EQ(f.layout(one_variant()), Layout::packed);
  EXPECT_EQ(f.shader(one_variant()).file, "q4gsw_gemv_i8dot.comp");
  EXPECT_EQ(f.requirements(one_variant()).features,
            static_cast<uint32_t>(Feature::shader_integer_dot_product));
  EXPECT_TRUE(f.requirements(one_variant()).needs(GlslExtension::integer_dot_product));
  // A chunk of max(wg / mmax, ksplit * unroll) blocks of 32 int8 and a scale, per row, and the
  // slices' hand-over.
  EXPECT_EQ(f.shared_bytes(one_variant()), 128u * 36u + 1u * 1u * 128u * 4u);
  const Knobs tall = parse_key("q4gsw_gemv_i8dot[wg=64,ksplit=4,npl=1,unroll=4,mmax=1]").knobs;
  EXPECT_EQ(f.shared_bytes(tall), 64u * 36u + 64u * 4u);
  const Knobs rows = parse_key("q4gsw_gemv_i8dot[wg=64,ksplit=4,npl=1,unroll=4,mmax=4]").knobs;
  EXPECT_EQ(f.shared_bytes(rows), 4u * 16u * 36u + 4u * 64u * 4u);
  EXPECT_EQ(f.groups(one_variant(), q4(1, 4097, 4096, 32), lavapipe_like())[0], 4096u / 64 + 1);

  const vk::DeviceInfo lp = lavapipe_like();
  const CompilerSupport c = newer_compiler();
  // M=1 on lavapipe (subgroups of 8, 32 KiB of shared memory), mmax 1 only: wg / ksplit a
  // multiple of 8 leaves 4 + 5 + 6 + 6 (wg, ksplit) pairs for wg 64..512, and wg 1024's chunk of
  // 1024 blocks (36 KiB) does not fit: 21 pairs x npl 2 x unroll 3.
  EXPECT_EQ(legal_count(f, q4(1, 4096, 4096, 32), lp, c), 126u);
  // M=3, mmax 4: npl x unroll <= 4 leaves 5 of 6; at wg 512 a K split's hand-over
  // (npl x 4 rows x 512 floats) fits only with npl 1: 20 + 25 + 30 + (5 + 5 x 3).
  EXPECT_EQ(legal_count(f, q4(3, 4096, 4096, 128), lp, c), 95u);
  EXPECT_EQ(legal_count(f, q4(9, 4096, 4096, 32), lp, c), 0u);
  EXPECT_EQ(legal_count(f, q4(1, 4096, 4096 + 16, 16), lp, c), 0u);  // whole 32-blocks only
  EXPECT_NE(f.legality(one_variant(), q4(2, 64, 64, 32), lp, c).reason.find("m_max=1"),
            std::string::npos);
  // On an H100-like device a subgroup of 32 must share a K slice: 64 / 4 = 16 lanes do not.
  vk::DeviceInfo wide = lp;
  wide.subgroup_size = 32;
  EXPECT_NE(f.legality(tall, q4(1, 64, 64, 32), wide, c).reason.find("subgroup size 32"),
            std::string::npos);
}

// The int8 part of the tolerance: 8 standard deviations of x's rounding error relative to the
// bound, 0.0055 / sqrt(K) each (reference.h); on top of the fp32 one.
TEST(GemvI8Dot, ToleranceAddsTheInt8RoundingOfX) {
  for (uint32_t k : {32u, 64u, 4096u, 14336u}) {
    const Problem p = q4(1, 64, k, 32);
    const double int8 = int8_activation_tolerance(p);
    EXPECT_NEAR(int8 * std::sqrt(double(k)), 8 * 0.005485, 1e-4) << k;
    EXPECT_DOUBLE_EQ(i8dot().tolerance(p), fp32_tolerance(p) + int8);
    EXPECT_GT(i8dot().tolerance(p), find_family("q4gsw_gemv_fast")->tolerance(p));
  }
  Problem p16 = q4(1, 64, 4096, 32);
  p16.dtype = DType::f16;
  EXPECT_DOUBLE_EQ(find_family("q4gsw_gemv_i8dot_f16")->tolerance(p16),
                   i8dot().tolerance(q4(1, 64, 4096, 32)) + fp16_output_tolerance());
}

}  // namespace
}  // namespace vktune::kernels
