// The fixture of the instance tests: runs a family's legal variants on a problem on the test
// device (lavapipe here), on random never-zero inputs with the output poisoned with NaN, and
// checks each against the fp64 reference with its per-output bounds.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "kernels/vk/compiler_probe.h"
#include "kernels/vk/kernel_instance.h"
#include "tests/kernels/vulkan_fixture.h"

namespace vktune::kernels {

class InstanceSweepFixture : public test::VulkanFixture {
 protected:
  static ShaderCompiler& compiler() {
    static ShaderCompiler c;
    return c;
  }
  static PipelineCache& pipelines() {
    static PipelineCache cache;  // first used after the fixture's device, so destroyed before it
    return cache;
  }

  // Runs `knobs` on `problem` and checks it; returns false when the variant is illegal here.
  bool run_and_check(const Family& f, const Knobs& knobs, const Problem& p,
                     const ProblemData& data, const Reference& ref) {
    const Legality legal = f.legality(knobs, p, device().info(), linked_compiler_support());
    if (!legal) return false;
    const std::string key = f.key(knobs);
    KernelInstance inst =
        KernelInstance::create(device(), compiler(), f, knobs, p, data, 1, &pipelines());
    // The poison is there before the run, so a kernel that writes nothing fails.
    const std::vector<float> before = inst.download_output();
    EXPECT_TRUE(std::isnan(before.front()) && std::isnan(before.back())) << key;
    device().run([&](vk::CommandBuffer& cb) { inst.record(cb, 0); });
    if (f.workspace_bytes(knobs, p) > 0) {
      // A kernel with a workspace must leave it ready for the next dispatch: check that one.
      inst.reset_output();
      device().run([&](vk::CommandBuffer& cb) { inst.record(cb, 0); });
    }
    const CheckResult c = check(inst.download_output(), ref, f.tolerance(p));
    EXPECT_TRUE(c.ok) << key << " on " << describe(p) << ": max error " << c.max_error
                      << " x bound at output " << c.worst << " (row "
                      << c.worst / (output_count(p) / p.m) << "), " << c.non_finite
                      << " non-finite; tolerance " << f.tolerance(p);
    return true;
  }

  // The variants of `f` legal for `p` on the test device and the linked compiler, in order.
  std::vector<Knobs> legal_variants(const Family& f, const Problem& p) {
    std::vector<Knobs> out;
    for (const Knobs& k : f.all_variants()) {
      if (f.legality(k, p, device().info(), linked_compiler_support())) out.push_back(k);
    }
    return out;
  }

  // All legal variants of `name` (every `stride`-th one, offset by `offset`; of those reading
  // `only` when given) on `p`.
  size_t sweep(std::string_view name, const Problem& p, size_t stride = 1, size_t offset = 0,
               std::optional<Layout> only = std::nullopt) {
    const Family* f = find_family(name);
    EXPECT_NE(f, nullptr) << name;
    const ProblemData data = make_random(p, p.m * 1000003u + p.n * 101u + p.k);
    const Reference ref = reference(p, data);
    size_t ran = 0, index = 0;
    for (const Knobs& k : f->all_variants()) {
      if (only && f->layout(k) != *only) continue;
      if (index++ % stride != offset % stride) continue;
      ran += run_and_check(*f, k, p, data, ref);
      if (HasFailure()) break;  // one broken family should not flood the log
    }
    return ran;
  }
};

// Under the validation layer lavapipe takes ~1.5 s per pipeline, so by default the big families
// run a spread sample of their variants (prime strides, a different offset per shape; every
// knob value occurs). VKTUNE_ALL_VARIANTS=1 runs every legal variant on every shape.
inline size_t spread(size_t stride) {
  const char* all = std::getenv("VKTUNE_ALL_VARIANTS");
  return all != nullptr && std::string(all) == "1" ? 1 : stride;
}
inline bool sampling() { return spread(2) != 1; }

}  // namespace vktune::kernels
