// The dispatch contract proven on a device: buffers allocated, filled and bound only as the plan
// says, weights prepacked by the runtime, the variant's SPIR-V, one dispatch of the plan's
// groups with its push constants; the output matches the fp64 reference. Ragged shapes, both
// weight layouts, rms_norm, sdpa (q and the KV caches as an engine holds them), both dtypes (f16
// buffers in 2-byte elements).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>

#include "kernels/problem.h"
#include "kernels/vk/compiler_probe.h"
#include "kernels/families/reference.h"
#include "kernels/family.h"
#include "kernels/float16.h"
#include "kernels/vk/shader_compiler.h"
#include "kernels/vk/buffer.h"
#include "kernels/vk/command_buffer.h"
#include "kernels/vk/pipeline.h"
#include "runtime/builtin.h"
#include "runtime/dispatch.h"
#include "tests/kernels/vulkan_fixture.h"
#include "tests/runtime/hand_selection.h"

namespace vktune::runtime {
namespace {

class DispatchOnDevice : public vktune::test::VulkanFixture {
 protected:
  // Runs `s` on `q` through the plan alone and checks the output against the reference.
  void run(const Selection& s, const ProblemQuery& q) {
    const DispatchPlan plan =
        plan_dispatch(s, q, device().info().limits.max_workgroup_count);
    ASSERT_TRUE(plan.ok()) << plan.error;
    // The SPIR-V the answer carries with its specialisation (the runtime ships the built-ins'),
    // else the catalogue's shader compiled here (a hand-made selection).
    const kernels::Family& family = *kernels::find_family(s.family);
    std::vector<uint32_t> words(s.spirv.size() / 4);
    std::memcpy(words.data(), s.spirv.data(), words.size() * 4);
    Specialization specialization(s.specialization.begin(), s.specialization.end());
    if (words.empty()) {
      const kernels::Knobs knobs = family.knobs_from_json(nlohmann::json::parse(s.knobs_json));
      const kernels::ShaderSpec spec = family.shader(knobs);
      words = *compiler_.compile(spec, s.variant_key);
      specialization = spec.specialization;
    }
    const std::span<const uint32_t> spirv_words(words);
    const vk::ComputePipeline pipeline = vk::ComputePipeline::create(
        device(), {std::string(s.variant_key), spirv_words, static_cast<uint32_t>(plan.bindings.size()),
                   static_cast<uint32_t>(plan.push_constants.size()), specialization});

    const kernels::Problem p = *kernels::problem_of(q);
    const kernels::ProblemData data = kernels::make_random(p, 17);
    std::vector<vk::Buffer> buffers;
    std::vector<const vk::Buffer*> bound;
    for (const BindingPlan& b : plan.bindings) {
      buffers.push_back(vk::Buffer::create(device(), b.alloc_bytes));
      vk::Buffer& buffer = buffers.back();
      // Floats go up in the problem's dtype, as an engine holds them.
      const auto upload = [&](const std::vector<float>& values) {
        buffer.upload(std::span<const std::byte>(kernels::encode(values, p.dtype)));
      };
      if (b.name == "x" || b.name == "q") upload(data.x);
      if (b.name == "k_cache") upload(data.keys);
      if (b.name == "v_cache") upload(data.values);
      if (b.name == "scales" && b.bytes > 0) upload(data.scales);  // 0: in the weight (packed_s16)
      if (b.name == "w") upload(data.norm_weight);
      if (b.name == "weight") {
        std::vector<uint8_t> weight;
        ASSERT_EQ(prepack(plan.layout, data.weight, data.scales, p.n, p.k, p.group_size, weight),
                  "");
        ASSERT_EQ(weight.size(), b.bytes);
        buffer.upload(std::span<const uint8_t>(weight));
      }
      if (b.name == "out") {
        upload(std::vector<float>(kernels::output_count(p),
                                  std::numeric_limits<float>::quiet_NaN()));
      }
      if (b.zero_once) buffer.upload(std::span<const uint8_t>(std::vector<uint8_t>(b.alloc_bytes)));
    }
    for (const vk::Buffer& buffer : buffers) bound.push_back(&buffer);
    const vk::DescriptorSet set = pipeline.bind(bound);
    device().run([&](vk::CommandBuffer& cb) {
      cb.dispatch(pipeline, set, plan.push_constants, plan.groups);
    });
    size_t out = 0;
    while (plan.bindings[out].name != "out") ++out;
    const std::vector<float> result =
        kernels::decode(buffers[out].download<std::byte>(plan.bindings[out].bytes), p.dtype);
    ASSERT_EQ(result.size(), kernels::output_count(p));
    const kernels::CheckResult c =
        kernels::check(result, kernels::reference(p, data), family.tolerance(p));
    EXPECT_TRUE(c.ok) << s.variant_key << " on " << kernels::describe(p) << ": max error "
                      << c.max_error << ", " << c.non_finite << " non-finite";
  }

  static Selection builtin(const ProblemQuery& q) {
    Selection s;
    select_builtin(q, s);
    return s;
  }

  ShaderCompiler compiler_;
};

TEST_F(DispatchOnDevice, BuiltinsOnRaggedShapes) {
  for (const char* dtype : {"f32", "f16"}) {
    if (std::string_view(dtype) == "f16" && !device().info().features.storage_16bit) continue;
    for (const ProblemQuery q :
         {ProblemQuery{"q4gsw", dtype, 1, 37, 264, 8}, ProblemQuery{"q4gsw", dtype, 5, 67, 136, 8},
          ProblemQuery{"rms_norm", dtype, 3, 37, 37, 0},
          ProblemQuery{"rms_norm", dtype, 2, 64, 64, 0},
          ProblemQuery{"sdpa", dtype, 1, 77, 64, 0, 8, 2},    // vec4, GQA 4
          ProblemQuery{"sdpa", dtype, 3, 50, 42, 0, 4, 4},    // scalar, causal prefill
          ProblemQuery{"sdpa", dtype, 1, 33, 264, 0, 2, 1}}) {  // past 256: the baseline
      SCOPED_TRACE(std::string(q.op) + " " + dtype + " M=" + std::to_string(q.m) +
                   " N=" + std::to_string(q.n));
      const Selection s = builtin(q);
      EXPECT_FALSE(s.spirv.empty()) << "built-in answers carry their SPIR-V";
      run(s, q);
    }
  }
}

TEST_F(DispatchOnDevice, PackedLayoutPrepackedByTheRuntime) {
  run(test::hand_selection("q4gsw_tiled", "q4gsw_tiled[layout=packed,tm=2,tn=4,wg=64,bk=0]",
                           R"({"layout":"packed","tm":2,"tn":4,"wg":64,"bk":0})"),
      {"q4gsw", "f32", 3, 45, 256, 32});
}

// packed_s16: the runtime's prepack puts the scales in the weight; the plan binds none.
TEST_F(DispatchOnDevice, PackedS16PrepackedByTheRuntime) {
  run(test::hand_selection(
          "q4gsw_gemv", "q4gsw_gemv[layout=packed_s16,wg=64,rows=4,load=u32x4,reduce=shared]",
          R"({"layout":"packed_s16","wg":64,"rows":4,"load":"u32x4","reduce":"shared"})"),
      {"q4gsw", "f32", 2, 45, 256, 64});
  run(test::hand_selection("q4gsw_gemv_fast_s16",
                           "q4gsw_gemv_fast_s16[wg=64,ksplit=2,npl=2,unroll=2,mmax=1]",
                           R"({"wg":64,"ksplit":2,"npl":2,"unroll":2,"mmax":1})"),
      {"q4gsw", "f32", 1, 45, 256, 32});
}

// The integer-dot-product GEMV through the plan alone: it names shaderIntegerDotProduct, and the
// device this fixture created (which enables what it has) runs it, from the prebuilt module
// where the linked compiler rejects the GLSL.
TEST_F(DispatchOnDevice, IntegerDotProductGemv) {
  const kernels::Family& family = *kernels::find_family("q4gsw_gemv_i8dot");
  const std::string why = family.unavailable_reason(device().info(), linked_compiler_support());
  if (!why.empty()) GTEST_SKIP() << why;
  const Selection s = test::hand_selection("q4gsw_gemv_i8dot",
                                           "q4gsw_gemv_i8dot[wg=64,ksplit=2,npl=2,unroll=2,mmax=4]",
                                           R"({"wg":64,"ksplit":2,"npl":2,"unroll":2,"mmax":4})");
  const ProblemQuery q{"q4gsw", "f32", 3, 45, 512, 64};
  const DispatchPlan plan = plan_dispatch(s, q, device().info().limits.max_workgroup_count);
  EXPECT_EQ(plan.required_features, std::vector<std::string>{"shaderIntegerDotProduct"});
  EXPECT_EQ(plan.layout, "packed");
  run(s, q);
}

}  // namespace
}  // namespace vktune::runtime
