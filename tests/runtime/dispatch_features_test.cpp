// The device features a dispatch plan asks for: the catalogue's requirements, by name and bit, in
// C++ and C, checked against the families' own legality so the list cannot drift from it.
#include <gtest/gtest.h>

#include <algorithm>
#include <deque>
#include <string>
#include <vector>

#include "kernels/compiler_support.h"
#include "kernels/family.h"
#include "kernels/problem.h"
#include "runtime/dispatch.h"
#include "runtime/vktune_runtime.h"

namespace vktune::runtime {
namespace {

constexpr std::array<uint32_t, 3> kLargeGrid{65535, 65535, 65535};

Selection selection(const std::string& family, const std::string& knobs_json) {
  static std::deque<std::string> keep;  // Selection holds views; a deque never moves them
  keep.push_back(family);
  const std::string_view f = keep.back();
  keep.push_back(knobs_json);
  Selection s;
  s.status = Status::ok;
  s.family = f;
  s.variant_key = f;
  s.knobs_json = keep.back();
  return s;
}

// The plan of `family` with `knobs_json` for `p` through the C API.
vktune_dispatch c_plan(const char* family, const char* knobs_json, const vktune_problem_query& p) {
  vktune_selection c{};
  c.status = VKTUNE_OK;
  c.family = family;
  c.variant_key = family;
  c.knobs_json = knobs_json;
  const uint32_t grid[3] = {65535, 65535, 65535};
  vktune_dispatch d{};
  vktune_plan_dispatch(&c, &p, grid, &d);
  return d;
}

TEST(DispatchFeatures, F16VariantNeedsSixteenBitStorage) {
  const ProblemQuery q{"q4gsw", "f16", 1, 64, 256, 32};
  const DispatchPlan plan = plan_dispatch(
      selection("q4gsw_gemv_f16",
                R"({"layout":"raw","wg":64,"rows":1,"load":"u32","reduce":"shared"})"),
      q, kLargeGrid);
  ASSERT_TRUE(plan.ok()) << plan.error;
  EXPECT_EQ(plan.required_features, std::vector<std::string>{"storageBuffer16BitAccess"});
  EXPECT_EQ(plan.required_feature_bits, uint32_t{VKTUNE_FEATURE_STORAGE_BUFFER_16BIT});
  EXPECT_EQ(plan.required_subgroup_size, 0u);
}

TEST(DispatchFeatures, PlainF32GemvNeedsNone) {
  const ProblemQuery q{"q4gsw", "f32", 1, 64, 256, 32};
  const DispatchPlan plan = plan_dispatch(
      selection("q4gsw_gemv", R"({"layout":"raw","wg":64,"rows":1,"load":"u32","reduce":"shared"})"),
      q, kLargeGrid);
  ASSERT_TRUE(plan.ok()) << plan.error;
  EXPECT_TRUE(plan.required_features.empty());
  EXPECT_EQ(plan.required_feature_bits, 0u);
  EXPECT_EQ(plan.subgroup_size_divides, 0u);
  EXPECT_EQ(plan.tolerance, kernels::find_family("q4gsw_gemv")->tolerance(*kernels::problem_of(q)));
}

// An engine checks an int8-dot GEMV against the looser bound its rounding of x to int8 needs
// (the gate's), a fp32 GEMV against fp32's; C reads the same number.
TEST(DispatchFeatures, ToleranceIsTheGatesForTheVariantsArithmetic) {
  const ProblemQuery q{"q4gsw", "f32", 1, 64, 256, 32};
  const DispatchPlan fp32 = plan_dispatch(
      selection("q4gsw_gemv", R"({"layout":"raw","wg":64,"rows":1,"load":"u32","reduce":"shared"})"),
      q, kLargeGrid);
  const DispatchPlan i8 = plan_dispatch(
      selection("q4gsw_gemv_i8dot", R"({"wg":64,"ksplit":1,"npl":1,"unroll":1,"mmax":1})"), q,
      kLargeGrid);
  ASSERT_TRUE(fp32.ok()) << fp32.error;
  ASSERT_TRUE(i8.ok()) << i8.error;
  EXPECT_GT(fp32.tolerance, 0.0);
  EXPECT_LT(fp32.tolerance, 1e-4);
  EXPECT_GT(i8.tolerance, 10 * fp32.tolerance);  // int8 rounding: ~3e-3 of the bound at K=256
  EXPECT_EQ(i8.required_features, std::vector<std::string>{"shaderIntegerDotProduct"});

  const vktune_dispatch d = c_plan("q4gsw_gemv_i8dot",
                                   R"({"wg":64,"ksplit":1,"npl":1,"unroll":1,"mmax":1})",
                                   {"q4gsw", "f32", 1, 64, 256, 32});
  ASSERT_EQ(d.status, VKTUNE_OK) << d.error;
  EXPECT_EQ(d.tolerance, i8.tolerance);
  EXPECT_EQ(d.required_features, uint32_t{VKTUNE_FEATURE_SHADER_INTEGER_DOT_PRODUCT});
}

TEST(DispatchFeatures, SubgroupAndCooperativeMatrixVariantsNameTheirs) {
  const DispatchPlan sg = plan_dispatch(
      selection("q4gsw_gemv_f16",
                R"({"layout":"raw","wg":64,"rows":2,"load":"u32","reduce":"subgroup"})"),
      {"q4gsw", "f16", 1, 64, 256, 32}, kLargeGrid);
  ASSERT_TRUE(sg.ok()) << sg.error;
  EXPECT_EQ(sg.required_features,
            (std::vector<std::string>{"storageBuffer16BitAccess",
                                      "VK_SUBGROUP_FEATURE_ARITHMETIC_BIT"}));
  EXPECT_EQ(sg.subgroup_size_divides, 32u);  // wg / rows lanes per output

  const DispatchPlan cm = plan_dispatch(
      selection("q4gsw_coopmat", R"({"bm":64,"bn":64,"bk":32,"sg":4,"buf":2})"),
      {"q4gsw", "f32", 128, 4096, 4096, 32}, kLargeGrid);
  ASSERT_TRUE(cm.ok()) << cm.error;
  EXPECT_EQ(cm.required_features,
            (std::vector<std::string>{"shaderFloat16", "VK_NV_cooperative_matrix"}));
  EXPECT_EQ(cm.required_subgroup_size, 32u);

  // The same from C: the bits and their names.
  const vktune_dispatch d = c_plan("q4gsw_coopmat", R"({"bm":64,"bn":64,"bk":32,"sg":4,"buf":2})",
                                   {"q4gsw", "f32", 128, 4096, 4096, 32});
  ASSERT_EQ(d.status, VKTUNE_OK) << d.error;
  EXPECT_EQ(d.required_features,
            uint32_t{VKTUNE_FEATURE_SHADER_FLOAT16 | VKTUNE_FEATURE_COOPERATIVE_MATRIX_NV});
  EXPECT_EQ(d.required_subgroup_size, 32u);
  EXPECT_EQ(d.shared_memory_bytes, cm.shared_memory_bytes);
  EXPECT_GT(d.shared_memory_bytes, 0u);
  EXPECT_STREQ(vktune_feature_name(VKTUNE_FEATURE_STORAGE_BUFFER_16BIT), "storageBuffer16BitAccess");
  EXPECT_STREQ(vktune_feature_name(VKTUNE_FEATURE_SUBGROUP_ARITHMETIC),
               "VK_SUBGROUP_FEATURE_ARITHMETIC_BIT");
  EXPECT_STREQ(vktune_feature_name(VKTUNE_FEATURE_COOPERATIVE_MATRIX_NV), "VK_NV_cooperative_matrix");
  EXPECT_STREQ(vktune_feature_name(VKTUNE_FEATURE_SHADER_INTEGER_DOT_PRODUCT),
               "shaderIntegerDotProduct");
  EXPECT_STREQ(vktune_feature_name(VKTUNE_FEATURE_COOPERATIVE_MATRIX2_NV),
               "VK_NV_cooperative_matrix2");
  EXPECT_STREQ(vktune_feature_name(VKTUNE_FEATURE_COOPERATIVE_MATRIX_KHR),
               "VK_KHR_cooperative_matrix");
  EXPECT_STREQ(vktune_feature_name(VKTUNE_FEATURE_SUBGROUP_SHUFFLE),
               "VK_SUBGROUP_FEATURE_SHUFFLE_BIT");
  EXPECT_STREQ(vktune_feature_name(1u << 30), "");
}

// A device with everything the catalogue knows of.
vk::DeviceInfo full_device() {
  vk::DeviceInfo d;
  d.name = "full (fake)";
  d.subgroup_size = 32;
  d.limits.max_invocations = 1024;
  d.limits.max_workgroup_size = {1024, 1024, 1024};
  d.limits.max_workgroup_count = {65535, 65535, 65535};
  d.limits.max_shared_memory_bytes = 65536;
  d.limits.max_storage_buffer_range = 0xFFFFFFFFull;
  for (const kernels::FeatureDesc& f : kernels::feature_descs()) d.features.*f.supported = true;
  d.features.coopmat_shapes = {{16, 16, 16, "f16", "f16", "f32", "f32"}};
  d.features.coopmat_khr_shapes = d.features.coopmat_shapes;
  return d;
}

// Shapes to find each variant a problem it runs (the first legal one is used).
std::vector<ProblemQuery> candidate_problems(std::string_view op, std::string_view dtype) {
  if (op == "rms_norm") return {{op, dtype, 4, 4096, 4096, 0}};
  if (op == "sdpa") {
    return {{op, dtype, 1, 1024, 128, 0, 32, 8}, {op, dtype, 1, 1024, 64, 0, 8, 8},
            {op, dtype, 1, 1024, 128, 0, 32, 32}};
  }
  return {{op, dtype, 1, 4096, 4096, 32}, {op, dtype, 8, 4096, 4096, 128},
          {op, dtype, 128, 4096, 4096, 32}, {op, dtype, 256, 4096, 14336, 128},
          {op, dtype, 512, 512, 4096, 32}};
}

// A compiler that accepts every optional GLSL extension, so that no family is refused for the
// compiler: the plan is about the device.
kernels::CompilerSupport full_compiler() {
  kernels::CompilerSupport c;
  for (const kernels::GlslExtensionDesc& e : kernels::glsl_extension_descs()) c.add(e.extension);
  return c;
}

// Every variant of every family: the plan's features are exactly those whose absence makes the
// family's own legality check refuse the variant, and likewise for the subgroup size.
TEST(DispatchFeatures, MatchTheFamiliesOwnDeviceChecks) {
  const vk::DeviceInfo full = full_device();
  const kernels::CompilerSupport compiler = full_compiler();
  size_t checked = 0, variants = 0;
  for (const kernels::Family* family : kernels::families()) {
    const std::string op = kernels::op_name(family->op());
    const std::string dtype = kernels::dtype_name(family->dtype());
    for (const kernels::Knobs& knobs : family->all_variants()) {
      ++variants;
      const Selection s = selection(family->name(), kernels::to_json_text(knobs));
      for (const ProblemQuery& q : candidate_problems(op, dtype)) {
        const kernels::Problem p = *kernels::problem_of(q);
        if (!family->legality(knobs, p, full, compiler).ok) continue;
        const DispatchPlan plan = plan_dispatch(s, q, kLargeGrid);
        ASSERT_TRUE(plan.ok()) << family->key(knobs) << ": " << plan.error;
        for (const kernels::FeatureDesc& f : kernels::feature_descs()) {
          vk::DeviceInfo without = full;
          without.features.*f.supported = false;
          const bool listed = std::find(plan.required_features.begin(), plan.required_features.end(),
                                        f.name) != plan.required_features.end();
          EXPECT_EQ(listed, (plan.required_feature_bits & uint32_t(f.feature)) != 0);
          EXPECT_EQ(!family->legality(knobs, p, without, compiler).ok, listed)
              << family->key(knobs) << " and " << f.name;
        }
        // The shared memory the plan names is what the family's own check holds the device to.
        if (plan.shared_memory_bytes > 0) {
          vk::DeviceInfo small = full;
          small.limits.max_shared_memory_bytes = plan.shared_memory_bytes - 1;
          EXPECT_FALSE(family->legality(knobs, p, small, compiler).ok) << family->key(knobs);
          small.limits.max_shared_memory_bytes = plan.shared_memory_bytes;
          EXPECT_TRUE(family->legality(knobs, p, small, compiler).ok) << family->key(knobs);
        }
        ++checked;  // its features and shared memory
        vk::DeviceInfo other_size = full;
        other_size.subgroup_size = 64;
        const bool size_matters = plan.required_subgroup_size != 0 ||
                                  (plan.subgroup_size_divides != 0 &&
                                   plan.subgroup_size_divides % 64 != 0);
        // gemv_fast and gemv_i8dot refuse splitting a subgroup across K slices for speed, not
        // correctness: a device check that is no feature to enable.
        if (family->name().starts_with("q4gsw_gemv_fast") ||
            family->name().starts_with("q4gsw_gemv_i8dot")) {
          break;
        }
        EXPECT_EQ(!family->legality(knobs, p, other_size, compiler).ok, size_matters)
            << family->key(knobs);
        break;
      }
    }
  }
  EXPECT_GT(checked, variants / 4) << "too few variants found a legal problem";
}

}  // namespace
}  // namespace vktune::runtime
