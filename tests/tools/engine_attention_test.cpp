// The engine's attention on a tiny GQA layer (lavapipe here), in both dtypes: attention over
// the cache at several M and L matches the fp64 reference, the check sees the cache, decode
// steps run through one graph (switching attention where the context crosses a tuned L
// bucket). An f16 layer runs attention in fp16 (q, the KV cache and its output), tuned or
// built-in, and says so where the device lacks 16-bit storage.
#include <gtest/gtest.h>

#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/float16.h"
#include "tests/tools/engine_fixture.h"
#include "tools/engine/decode_loop.h"

namespace vktune::engine {
namespace {

// The attention tests, once per dtype: an f16 layer's attention reads and writes fp16 (q, the
// caches, out) through the f16 sdpa instances.
class EngineDtypeTest : public EngineTest, public ::testing::WithParamInterface<kernels::DType> {
 protected:
  void SetUp() override {
    EngineTest::SetUp();
    if (GetParam() == kernels::DType::f16 && !device().info().features.storage_16bit) {
      GTEST_SKIP() << device().info().name << " lacks storageBuffer16BitAccess: no f16 layer "
                   << "runs (F16AttentionNames16BitStorage checks that it says so)";
    }
  }
  // `base` ("sdpa_split") in this test's dtype: its _f16 instance for f16.
  static std::string family(std::string_view base) {
    return kernels::family_name(base, GetParam());
  }
};

INSTANTIATE_TEST_SUITE_P(Dtypes, EngineDtypeTest,
                         ::testing::Values(kernels::DType::f32, kernels::DType::f16),
                         [](const auto& instance) {
                           return std::string(kernels::dtype_name(instance.param));
                         });

// An f16 layer runs attention in fp16 end to end: the runtime is asked for f16 sdpa, whose q,
// caches and output are the layer's fp16 tensors, so RoPE and the append write fp16 and
// o_proj reads attention's output with no cast between.
TEST_F(EngineTest, F16LayerAttendsInF16) {
  const Layer f16 = make_layer(shape(), 3, 10, kernels::DType::f16);
  ASSERT_EQ(f16.nodes.size(), 17u);
  const Node& attention = f16.nodes[8];
  EXPECT_EQ(attention.name, "attention");
  EXPECT_EQ(attention.problem.dtype, kernels::DType::f16);
  for (const char* tensor : {"q_rot", "k_rot", "k_cache", "v_cache", "attn", "rope_table"}) {
    EXPECT_EQ(f16.tensors[f16.tensor(tensor)].dtype, kernels::DType::f16) << tensor;
  }
  EXPECT_EQ(f16.nodes[9].name, "o_proj");
  EXPECT_EQ(f16.nodes[9].inputs, std::vector<size_t>{attention.output});
  // The earlier positions are uploaded as fp16, so they must be fp16 values already.
  const LayerData data = make_layer_data(f16, 7);
  const uint64_t earlier = uint64_t{f16.first_position()} * shape().kv_width();
  for (const std::vector<float>* cache : {&data.k_cache, &data.v_cache}) {
    for (uint64_t i = 0; i < earlier; ++i) {
      ASSERT_EQ((*cache)[i], kernels::round_to_half((*cache)[i])) << "element " << i;
    }
  }
  for (const float v : data.rope) ASSERT_EQ(v, kernels::round_to_half(v));  // the RoPE table's too
}

// Without 16-bit storage an f16 layer cannot run, and says so: its attention (as every routed
// node) names the feature the device lacks, before anything runs.
TEST_F(EngineTest, F16AttentionNames16BitStorage) {
  vk::DeviceInfo no16 = device().info();
  no16.name = "no16 (fake)";
  no16.features.storage_16bit = false;
  const Router router(nullptr, no16);
  const Layer layer = make_layer(tiny(), 1, 6, kernels::DType::f16);
  auto refusal = [](auto&& call) {
    try {
      call();
    } catch (const std::runtime_error& e) {
      return std::string(e.what());
    }
    return std::string("ran");
  };
  const std::string attention = refusal([&] { router.route(layer.nodes[8].problem); });
  EXPECT_NE(attention.find("sdpa_fused_f16"), std::string::npos) << attention;
  EXPECT_NE(attention.find("needs storageBuffer16BitAccess, which no16 (fake) lacks"),
            std::string::npos)
      << attention;
  const std::string build = refusal([&] {
    Graph::build(device(), compiler(), pipelines(), layer, make_layer_data(layer, 3), router);
  });
  EXPECT_NE(build.find("storageBuffer16BitAccess, which no16 (fake) lacks"), std::string::npos)
      << build;
}

TEST_P(EngineDtypeTest, AttentionOverTheCacheMatchesReference) {
  const Router router(nullptr, device().info());
  for (const auto& [m, context] : {std::pair{1u, 5u}, {1u, 40u}, {3u, 3u}, {3u, 17u}, {3u, 40u}}) {
    const Layer layer = make_layer(tiny(), m, context, GetParam());
    const LayerData data = make_layer_data(layer, 31);
    auto [graph, check] = run(layer, data, router);
    SCOPED_TRACE("M=" + std::to_string(m) + " L=" + std::to_string(context));
    expect_ok(check);
    const Route& attention = route_of(graph, "attention");
    EXPECT_EQ(attention.family, family("sdpa_fused"));
    EXPECT_EQ(attention.plan.bindings.at(1).name, "k_cache");
  }
}

// The runtime keys attention by dtype: an f16 layer runs the database's f16 winner for its very
// problem, and the built-in f16 routing where only an f32 winner was tuned.
TEST_F(EngineTest, F16AttentionTakesTheF16Winner) {
  if (!device().info().features.storage_16bit) GTEST_SKIP() << "no 16-bit storage";
  const std::string knobs = "[vec=4,keys=1,wg=32,slices=2,qpg=2]";
  const Layer layer = make_layer(tiny(), 1, 9, kernels::DType::f16);
  const LayerData data = make_layer_data(layer, 39);
  {
    const Router router(
        tuned({{attention(1, 9, kernels::DType::f16), "sdpa_split_f16" + knobs, 4321}}),
        device().info());
    auto [graph, check] = run(layer, data, router);
    expect_ok(check);
    const Route& r = route_of(graph, "attention");
    EXPECT_EQ(r.source, Source::exact);
    EXPECT_EQ(r.key, "sdpa_split_f16" + knobs);
    EXPECT_EQ(r.tuned_ns, 4321);  // the f16 winner's own time
    EXPECT_EQ(r.plan.required_features, std::vector<std::string>{"storageBuffer16BitAccess"});
  }
  {
    const Router router(tuned({{attention(1, 9, kernels::DType::f32), "sdpa_split" + knobs}}),
                        device().info());
    auto [graph, check] = run(layer, data, router);
    expect_ok(check);
    const Route& r = route_of(graph, "attention");
    EXPECT_EQ(r.source, Source::builtin);
    EXPECT_EQ(r.family, "sdpa_fused_f16");
    EXPECT_FALSE(r.tuned_ns);
  }
}

// The earlier positions of the cache reach the output: a reference that sees other values at
// position 0 than the GPU did disagrees with the layer's output, not only with the cache.
TEST_F(EngineTest, CheckSeesTheCache) {
  const Layer layer = make_layer(tiny(), 1, 12);
  LayerData data = make_layer_data(layer, 33);
  const Router router(nullptr, device().info());
  auto [graph, check] = run(layer, data, router);
  expect_ok(check);
  for (uint32_t i = 0; i < tiny().kv_width(); ++i) data.v_cache[i] += 3.0f;
  const LayerCheck changed = check_layer(graph, data, reference_layer(layer, data, {0}));
  EXPECT_FALSE(changed.ok);
  EXPECT_FALSE(changed.outputs[0].result.ok) << "out does not depend on the cache";
  EXPECT_TRUE(changed.nodes[8].result.ok) << "attention on its GPU inputs";
}

// Decode through one graph: the context pushed per step, each step's key appended at its
// position (checked against the reference of a layer at that context), the last step checked
// whole on the cache the earlier steps left.
TEST_P(EngineDtypeTest, DecodeStepsGrowTheCache) {
  const uint32_t first = 5, steps = 4, last = first + steps - 1;
  const Layer layer = make_layer(tiny(), 1, last, GetParam());
  const LayerData data = make_layer_data(layer, 35);
  const Router router(nullptr, device().info());
  Graph graph = Graph::build(device(), compiler(), pipelines(), layer, data, router);
  EXPECT_THROW(graph.set_context(0), std::invalid_argument);
  EXPECT_THROW(graph.set_context(last + 1), std::invalid_argument);
  EXPECT_THROW(run_decode(graph, first, steps + 1), std::invalid_argument);
  const std::vector<DecodeStep> done = run_decode(graph, first, steps);
  ASSERT_EQ(done.size(), steps);
  for (uint32_t s = 0; s < steps; ++s) {
    EXPECT_EQ(done[s].context, first + s);
    EXPECT_GT(done[s].ns, 0);
  }
  EXPECT_EQ(graph.context(), last);
  EXPECT_EQ(route_of(graph, "attention").family, family("sdpa_fused"));
  const LayerData left = as_left(graph, data);
  expect_ok(check_layer(graph, left, reference_layer(layer, left, {0})));
  const size_t k_cache = layer.tensor("k_cache");
  const uint32_t width = tiny().kv_width();
  for (uint32_t context = first; context < last; ++context) {
    const Layer at = make_layer(tiny(), 1, context, GetParam());
    const kernels::Reference all = reference_layer(at, make_layer_data(at, 35), {0}).tensors[k_cache];
    const uint64_t row = uint64_t{context - 1} * width;
    kernels::Reference key;
    key.values.assign(all.values.begin() + row, all.values.begin() + row + width);
    key.bounds.assign(all.bounds.begin() + row, all.bounds.begin() + row + width);
    const kernels::CheckResult c = kernels::check(
        std::span<const float>(left.k_cache).subspan(row, width), key, graph.tolerance());
    EXPECT_TRUE(c.ok) << "position " << context - 1 << ": " << c.max_error;
  }
}

// Two tuned L buckets of the tiny layer's attention with different winners, 8 and 24: the
// midpoint in log L is sqrt(8 * 24) = 13.9, so contexts up to 13 get the L = 8 winner and from
// 14 on the L = 24 one. Decode loops from 10 that stop before the boundary or cross it run each
// step with its bucket's variant (re-asked per step, the pipelines created once per variant)
// and pass the fp64 check at their last step.
TEST_P(EngineDtypeTest, DecodeSwitchesAttentionWhereTheBucketChanges) {
  const std::string split = family("sdpa_split") + "[vec=4,keys=1,wg=32,slices=2,qpg=2]";
  const std::string naive = family("sdpa_naive") + "[wg=32]";
  const auto snapshot =
      tuned({{attention(1, 8, GetParam()), split}, {attention(1, 24, GetParam()), naive}});
  const Router router(snapshot, device().info());
  const uint32_t first = 10, boundary = 14;
  for (const uint32_t last : {13u, 14u, 17u}) {
    SCOPED_TRACE("decode L = " + std::to_string(first) + " .. " + std::to_string(last));
    const Layer layer = make_layer(tiny(), 1, last, GetParam());
    const LayerData data = make_layer_data(layer, 37);
    Graph graph = Graph::build(device(), compiler(), pipelines(), layer, data, router);
    // Built for the cache's capacity: the last step's bucket.
    EXPECT_EQ(route_of(graph, "attention").key, last < boundary ? split : naive);
    const size_t built = graph.pipeline_count();

    const std::vector<DecodeStep> done = run_decode(graph, first, last - first + 1);
    for (const DecodeStep& s : done) {
      EXPECT_EQ(s.attention, s.context < boundary ? split : naive) << "L=" << s.context;
    }
    const std::vector<AttentionSpan> spans = attention_spans(done);
    const Route& attention = route_of(graph, "attention");
    EXPECT_EQ(attention.source, Source::nearest);
    if (last < boundary) {
      EXPECT_EQ(spans, (std::vector<AttentionSpan>{{split, first, last}}));
      EXPECT_EQ(describe(spans), "unchanged: " + split + " for L 10-13");
      EXPECT_EQ(graph.pipeline_count(), built);
      EXPECT_EQ(attention.matched, "M=1 N=8");
    } else {
      EXPECT_EQ(spans, (std::vector<AttentionSpan>{{split, first, boundary - 1},
                                                   {naive, boundary, last}}));
      EXPECT_EQ(describe(spans), "1 change: " + split + " for L 10-13, " + naive + " from L 14");
      // The build's variant was run again from 14 on: only the split one was added.
      EXPECT_EQ(graph.pipeline_count(), built + 1);
      EXPECT_EQ(attention.matched, "M=1 N=24");
    }
    // Back and forth across the boundary reuses what is there.
    graph.set_context(first);
    EXPECT_EQ(route_of(graph, "attention").key, split);
    graph.set_context(last);
    EXPECT_EQ(graph.pipeline_count(), last < boundary ? built : built + 1);

    const LayerData left = as_left(graph, data);
    expect_ok(check_layer(graph, left, reference_layer(layer, left, {0})));
  }
}

}  // namespace
}  // namespace vktune::engine
