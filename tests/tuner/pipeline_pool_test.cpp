// The background pool: every distinct variant's pipeline made into the session's cache, a
// pipeline the pool is making handed to another asker rather than made twice, and a stop that
// skips what is not begun.
#include "tuner/pipeline_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <set>
#include <string>
#include <vector>

#include "kernels/families/families.h"
#include "tests/kernels/vulkan_fixture.h"

namespace vktune::tuner {
namespace {

class PipelinePoolTest : public test::VulkanFixture {
 protected:
  // The first variants of two families, each listed twice.
  static std::vector<PipelinePool::Variant> Variants() {
    std::vector<PipelinePool::Variant> variants;
    for (const char* name : {"q4gsw_naive", "q4gsw_gemv"}) {
      const kernels::Family& family = *kernels::find_family(name);
      const std::vector<kernels::Knobs> all = family.all_variants();
      for (size_t i = 0; i < std::min<size_t>(all.size(), 4); ++i) {
        variants.push_back({&family, all[i]});
        variants.push_back({&family, all[i]});
      }
    }
    return variants;
  }

  ShaderCompiler compiler_{TargetEnv::vulkan_1_2};
  kernels::PipelineCache cache_;
};

TEST_F(PipelinePoolTest, MakesEachDistinctVariantsPipeline) {
  const std::vector<PipelinePool::Variant> variants = Variants();
  PipelinePool pool(device(), compiler_, cache_, variants, 3);
  pool.wait();
  EXPECT_EQ(pool.size(), variants.size() / 2);
  EXPECT_EQ(cache_.size(), variants.size() / 2);
  EXPECT_GT(pool.busy().count(), 0);
  EXPECT_GT(pool.cpu().count(), 0);  // compiling took CPU
}

TEST_F(PipelinePoolTest, AnAskerGetsThePipelineThePoolMakes) {
  const std::vector<PipelinePool::Variant> variants = Variants();
  std::vector<std::shared_ptr<const vk::ComputePipeline>> asked;
  {
    PipelinePool pool(device(), compiler_, cache_, variants, 3);
    // The loop asks for the same pipelines meanwhile: made, in the making or not begun.
    for (const PipelinePool::Variant& v : variants) {
      asked.push_back(
          kernels::KernelInstance::pipeline(device(), compiler_, *v.family, v.knobs, &cache_));
    }
  }
  EXPECT_EQ(cache_.size(), variants.size() / 2);
  for (size_t i = 0; i < variants.size(); i += 2) {
    EXPECT_EQ(asked[i], asked[i + 1]) << variants[i].family->key(variants[i].knobs);
  }
}

TEST_F(PipelinePoolTest, AStopSkipsWhatIsNotBegun) {
  const std::atomic<bool> stop = true;
  PipelinePool pool(device(), compiler_, cache_, Variants(), 2, &stop);
  pool.wait();
  EXPECT_EQ(cache_.size(), 0u);
}

}  // namespace
}  // namespace vktune::tuner
