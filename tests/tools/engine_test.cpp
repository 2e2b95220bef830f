// The decoder-layer engine on the smoke preset's layer (lavapipe here): built with built-in
// routing and with a tiny tuned database, it matches the fp64 reference node by node and end to
// end; it runs the runtime's SPIR-V (a database's included, whatever the catalogue's shader
// says); a database winner that cannot run on the device, or comes without SPIR-V, falls back
// to built-in routing; every node says how its variant was found. A tiny GQA layer checks
// attention over the cache at several M and L, that the check sees the cache, decode steps
// through one graph (switching attention where the context crosses a tuned L bucket), and the
// refusals of bad shapes. An f16 layer runs attention in fp16 (q, the KV cache and its output),
// tuned or built-in, and says so where the device lacks 16-bit storage.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "db/store.h"
#include "kernels/families/q4gsw_layout.h"
#include "kernels/float16.h"
#include "kernels/knobs.h"
#include "runtime/builtin_spirv.h"
#include "runtime/snapshot.h"
#include "tests/kernels/vulkan_fixture.h"
#include "tools/engine/decode_loop.h"
#include "tools/engine/graph.h"
#include "tools/engine/layer_reference.h"
#include "tuner/records.h"

namespace vktune::engine {
namespace {

using kernels::Op;
using kernels::Problem;

struct Winner {
  Problem problem;
  std::string key;  // canonical variant key
  double median_ns = 1000;
  // The SPIR-V stored with it: the key's own (compiled from the catalogue) when empty, another
  // variant's when a key, none when "none".
  std::string spirv_of = {};
};

class EngineTest : public test::VulkanFixture {
 protected:
  static ShaderCompiler& compiler() {
    static ShaderCompiler c;
    return c;
  }
  static kernels::PipelineCache& pipelines() {
    static kernels::PipelineCache cache;  // first used after the device: destroyed before it
    return cache;
  }

  // A tuned database holding `winners` for this very device, as a runtime snapshot.
  static std::shared_ptr<const runtime::Snapshot> tuned(const std::vector<Winner>& winners) {
    db::Store store = db::Store::open_memory();
    const int64_t device_id = store.upsert_device(tuner::device_record(device().info()));
    db::RunRecord run;
    run.strategy = "test";
    const int64_t run_id = store.begin_run(run);
    for (const Winner& w : winners) {
      const kernels::ParsedKey parsed = kernels::parse_key(w.key);
      const kernels::Family* family = kernels::find_family(parsed.family);
      EXPECT_NE(family, nullptr) << w.key;
      db::Measurement m;
      m.run_id = run_id;
      m.device_id = device_id;
      m.problem_id = store.upsert_problem(tuner::problem_record(w.problem));
      db::KernelRecord kernel = tuner::kernel_record(*family, parsed.knobs, nullptr);
      if (w.spirv_of != "none") {
        db::KernelRecord source = kernel;
        if (!w.spirv_of.empty()) {
          const kernels::ParsedKey other = kernels::parse_key(w.spirv_of);
          source = tuner::kernel_record(*kernels::find_family(other.family), other.knobs, nullptr);
        }
        kernel.spirv = tuner::compile_spirv(compiler(), source);
      }
      m.kernel_id = store.upsert_kernel(kernel);
      m.status = db::Status::ok;
      m.n = 5;
      m.median_ns = w.median_ns;
      store.add_measurement(m);
    }
    std::string error;
    auto snapshot = runtime::Snapshot::from_catalog(store.catalog(), &error);
    EXPECT_NE(snapshot, nullptr) << error;
    return snapshot;
  }

  // Builds the smoke layer for `m` tokens with `router`, runs it once and checks it.
  static std::pair<Graph, LayerCheck> run(const Layer& layer, const LayerData& data,
                                          const Router& router) {
    Graph graph = Graph::build(device(), compiler(), pipelines(), layer, data, router);
    graph.execute();
    const LayerReference ref = reference_layer(layer, data, rows_to_check(layer));
    LayerCheck check = check_layer(graph, data, ref);
    return {std::move(graph), std::move(check)};
  }

  static void expect_ok(const LayerCheck& check) {
    EXPECT_TRUE(check.ok);
    for (const auto* list : {&check.nodes, &check.outputs}) {
      for (const TensorCheck& t : *list) {
        EXPECT_TRUE(t.result.ok) << t.tensor << ": max error " << t.result.max_error << " x bound, "
                                 << t.result.non_finite << " non-finite";
      }
    }
    EXPECT_EQ(check.outputs.size(), 3u);  // out, k_cache, v_cache
  }

  // Tiny, with grouped-query attention: 4 query heads of 16 over 2 KV heads.
  static tuner::LayerShape tiny() {
    return {.hidden = 64, .ffn = 128, .group_size = 32, .heads = 4, .kv_heads = 2,
            .head_dim = 16, .layers = 3};
  }
  static const tuner::LayerShape& shape() {
    static const tuner::LayerShape s = tuner::preset_layer("smoke");
    return s;
  }
  static Problem linear(uint32_t m, uint32_t n, uint32_t k) {
    return {Op::q4gsw, m, n, k, shape().group_size, false};
  }
  static Problem norm(uint32_t m) {
    return {Op::rms_norm, m, shape().hidden, shape().hidden, 0, false};
  }
  // The tiny layer's attention: `m` tokens attending `context` positions.
  static Problem attention(uint32_t m, uint32_t context, kernels::DType dtype) {
    Problem p{Op::sdpa, m, context, tiny().head_dim, 0, false};
    p.heads = tiny().heads;
    p.kv_heads = tiny().kv_heads;
    p.dtype = dtype;
    return p;
  }
  static const Route& route_of(const Graph& graph, std::string_view node) {
    for (size_t i = 0; i < graph.layer().nodes.size(); ++i) {
      if (graph.layer().nodes[i].name == node) return graph.routes()[i];
    }
    throw std::out_of_range(std::string(node));
  }
};

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

TEST_F(EngineTest, LayerGraphHasTheDecoderNodes) {
  const Layer layer = make_layer(shape(), 3, 10);
  ASSERT_EQ(layer.nodes.size(), 16u);
  EXPECT_EQ(layer.nodes[7].name, "attention");
  EXPECT_EQ(layer.nodes[7].inputs, (std::vector<size_t>{layer.tensor("q_rot"),
                                                        layer.tensor("k_cache"),
                                                        layer.tensor("v_cache")}));
  Problem sdpa{Op::sdpa, 3, 10, 32, 0, false};
  sdpa.heads = 8;
  sdpa.kv_heads = 2;
  EXPECT_EQ(layer.nodes[7].problem, sdpa);
  EXPECT_EQ(layer.nodes[8].name, "o_proj");
  EXPECT_EQ(layer.nodes[8].inputs, std::vector<size_t>{layer.tensor("attn")});
  EXPECT_EQ(layer.nodes[8].problem, linear(3, 256, 256));
  EXPECT_EQ(layer.nodes[14].problem, linear(3, 256, 512));  // down
  EXPECT_EQ(layer.nodes[2].problem, linear(3, 64, 256));    // k
  EXPECT_EQ(layer.nodes[5].output, layer.tensor("k_cache"));  // rope_k appends k
  EXPECT_EQ(layer.rows(layer.tensor("k_cache")), 10u);
  EXPECT_EQ(layer.nodes.back().inputs,
            (std::vector<size_t>{layer.tensor("h"), layer.tensor("down")}));
}

// An f16 layer runs attention in fp16 end to end: the runtime is asked for f16 sdpa, whose q,
// caches and output are the layer's fp16 tensors, so RoPE and the append write fp16 and
// o_proj reads attention's output with no cast between.
TEST_F(EngineTest, F16LayerAttendsInF16) {
  const Layer f16 = make_layer(shape(), 3, 10, kernels::DType::f16);
  ASSERT_EQ(f16.nodes.size(), 16u);
  const Node& attention = f16.nodes[7];
  EXPECT_EQ(attention.name, "attention");
  EXPECT_EQ(attention.problem.dtype, kernels::DType::f16);
  for (const char* tensor : {"q_rot", "k_cache", "v_cache", "attn"}) {
    EXPECT_EQ(f16.tensors[f16.tensor(tensor)].dtype, kernels::DType::f16) << tensor;
  }
  EXPECT_EQ(f16.tensors[f16.tensor("rope_table")].dtype, kernels::DType::f32);
  EXPECT_EQ(f16.nodes[8].name, "o_proj");
  EXPECT_EQ(f16.nodes[8].inputs, std::vector<size_t>{attention.output});
  // The earlier positions are uploaded as fp16, so they must be fp16 values already.
  const LayerData data = make_layer_data(f16, 7);
  const uint64_t earlier = uint64_t{f16.first_position()} * shape().kv_width();
  for (const std::vector<float>* cache : {&data.k_cache, &data.v_cache}) {
    for (uint64_t i = 0; i < earlier; ++i) {
      ASSERT_EQ((*cache)[i], kernels::round_to_half((*cache)[i])) << "element " << i;
    }
  }
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
  const std::string attention = refusal([&] { router.route(layer.nodes[7].problem); });
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

// In both dtypes: an f16 layer (every activation fp16) is routed to the f16 built-ins and
// checked node by node and end to end against the fp64 reference on the same fp16 inputs.
TEST_F(EngineTest, FixedRoutingMatchesReference) {
  for (kernels::DType dtype : {kernels::DType::f32, kernels::DType::f16}) {
    if (dtype == kernels::DType::f16 && !device().info().features.storage_16bit) continue;
    const std::string suffix = dtype == kernels::DType::f16 ? "_f16" : "";
    for (uint32_t m : {1u, 5u}) {
      const Layer layer = make_layer(shape(), m, 3 * m + 4, dtype);
      const LayerData data = make_layer_data(layer, 7);
      const Router router(nullptr, device().info());
      auto [graph, check] = run(layer, data, router);
      expect_ok(check);
      EXPECT_EQ(count_routes(graph.routes()), (RouteCounts{0, 0, 10, 0})) << "M=" << m;
      EXPECT_EQ(route_of(graph, "q_proj").key,
                m == 1 ? "q4gsw_gemv" + suffix + "[layout=raw,wg=64,rows=1,load=u32,reduce=shared]"
                       : "q4gsw_tiled" + suffix + "[layout=raw,tm=4,tn=4,wg=64,bk=0]");
      EXPECT_EQ(route_of(graph, "attention").family, "sdpa_fused" + suffix);
      const GraphTimes times = graph.time(2, 0);
      EXPECT_EQ(times.node_ns.size(), layer.nodes.size());
      EXPECT_GT(times.total_ns, 0);
    }
  }
}

TEST_F(EngineTest, TunedRoutingMatchesReference) {
  const std::string gemv = "q4gsw_gemv[layout=packed,wg=64,rows=2,load=u32x4,reduce=shared]";
  const std::string tiled = "q4gsw_tiled[layout=packed,tm=2,tn=4,wg=64,bk=32]";
  const auto snapshot = tuned({{norm(1), "rms_norm[vec=4,wg=64]"},
                               {linear(1, 256, 256), gemv},
                               {linear(5, 512, 256), tiled}});
  const Router router(snapshot, device().info());
  {
    const Layer layer = make_layer(shape(), 1, 9);
    const LayerData data = make_layer_data(layer, 11);
    auto [graph, check] = run(layer, data, router);
    expect_ok(check);
    // Exact: both norms, q and o. Nearest: k and v (N=64), gate and up (N=512: the M=1 gemv
    // winner is nearer than the M=5 tiled one) and down (K=512). Nothing tuned for attention:
    // built-in.
    EXPECT_EQ(count_routes(graph.routes()), (RouteCounts{4, 5, 1, 0}));
    const Route& q = route_of(graph, "q_proj");
    EXPECT_EQ(q.source, Source::exact);
    EXPECT_EQ(q.key, gemv);
    EXPECT_EQ(q.device_match, runtime::DeviceMatch::exact);
    EXPECT_EQ(q.plan.layout, "packed");  // prepacked at build by the runtime
    const Route& k = route_of(graph, "k_proj");
    EXPECT_EQ(k.source, Source::nearest);
    EXPECT_GT(k.distance, 0);
    EXPECT_NE(k.how().find("nearest"), std::string::npos) << k.how();
    EXPECT_EQ(route_of(graph, "attn_norm").key, "rms_norm[vec=4,wg=64]");
  }
  {
    const Layer layer = make_layer(shape(), 5, 5);
    const LayerData data = make_layer_data(layer, 12);
    auto [graph, check] = run(layer, data, router);
    expect_ok(check);
    const Route& up = route_of(graph, "up_proj");
    EXPECT_EQ(up.source, Source::exact);
    EXPECT_EQ(up.key, tiled);
    // Nothing tuned at M=5 for the norm: the nearest (M=1) winner serves it.
    EXPECT_EQ(route_of(graph, "attn_norm").source, Source::nearest);
    EXPECT_EQ(count_routes(graph.routes()).exact, 2u);  // gate, up
  }
}

// A variant whose stored constraints allow `p` but that cannot run on this device (cooperative
// matrix on lavapipe, say), or "" when every such variant is legal here.
std::string illegal_here(const Problem& p, const vk::DeviceInfo& device) {
  for (const kernels::Family* f : kernels::families()) {
    if (f->op() != p.op) continue;
    for (const kernels::Knobs& k : f->all_variants()) {
      if (kernels::check(f->constraints(k), p).empty() && !f->legality(k, p, device)) {
        return f->key(k);
      }
    }
  }
  return {};
}

TEST_F(EngineTest, IllegalWinnerFallsBackToBuiltin) {
  const Problem q = linear(1, 256, 256);
  const std::string illegal = illegal_here(q, device().info());
  if (illegal.empty()) GTEST_SKIP() << "every variant that fits the shape is legal here";
  const auto snapshot = tuned({{q, illegal}, {norm(1), "rms_norm[vec=1,wg=32]"}});
  const Router router(snapshot, device().info());
  const Layer layer = make_layer(shape(), 1, 6);
  const LayerData data = make_layer_data(layer, 13);
  auto [graph, check] = run(layer, data, router);
  expect_ok(check);
  for (const char* node : {"q_proj", "o_proj"}) {
    const Route& r = route_of(graph, node);
    EXPECT_EQ(r.source, Source::fallback) << node;
    EXPECT_EQ(r.key, "q4gsw_gemv[layout=raw,wg=64,rows=1,load=u32,reduce=shared]");
    EXPECT_NE(r.rejected.find(illegal), std::string::npos) << r.rejected;
  }
  // k, v, gate, up and down take the illegal winner as their nearest where its constraints
  // allow (and fall back), else built-in routing, as attention does; nothing the device cannot
  // run is used.
  const RouteCounts counts = count_routes(graph.routes());
  EXPECT_EQ(counts.exact, 2u);  // the norms
  EXPECT_EQ(counts.nearest, 0u);
  EXPECT_GE(counts.fallback, 2u);
  EXPECT_EQ(counts.fallback + counts.builtin, 8u);
}

TEST_F(EngineTest, UnknownFamilyFallsBack) {
  // A database written by a newer vktune may name a family this build lacks.
  db::Store store = db::Store::open_memory();
  const int64_t device_id = store.upsert_device(tuner::device_record(device().info()));
  db::KernelRecord kernel;
  kernel.family = "q4gsw_future";
  kernel.variant_key = "q4gsw_future[wg=64]";
  kernel.knobs_json = R"({"wg":64})";
  kernel.layout = "raw";
  kernel.workgroup_size = 64;
  kernel.source_hash = "0";
  db::Measurement m;
  m.run_id = store.begin_run({});
  m.device_id = device_id;
  m.problem_id = store.upsert_problem(tuner::problem_record(linear(1, 256, 256)));
  m.kernel_id = store.upsert_kernel(kernel);
  m.median_ns = 1;
  store.add_measurement(m);
  const Router router(runtime::Snapshot::from_catalog(store.catalog()), device().info());
  const Route r = router.route(linear(1, 256, 256));
  EXPECT_EQ(r.source, Source::fallback);
  EXPECT_NE(r.rejected.find("not in this runtime's catalogue"), std::string::npos) << r.rejected;
  EXPECT_EQ(r.family, "q4gsw_gemv");
}

// Every routed node runs the SPIR-V the runtime returned: the built-ins' own, and a database's
// even where it is not what the catalogue's shader compiles to. Here the packed gemv winner
// carries the raw-layout gemv's SPIR-V (same bindings, push constants and workgroups), so an
// engine that ran it reads the weights the runtime prepacked in the wrong order and fails the
// check; one that recompiled the catalogue's GLSL for the key would pass.
TEST_F(EngineTest, RoutedNodesRunTheRuntimesSpirv) {
  {
    const Layer layer = make_layer(shape(), 1, 5);
    const Graph graph =
        Graph::build(device(), compiler(), pipelines(), layer, make_layer_data(layer, 41),
                     Router(nullptr, device().info()));
    size_t routed = 0;
    for (const Route& r : graph.routes()) {
      if (!r.routed()) continue;
      ++routed;
      const std::span<const uint32_t> builtin = runtime::builtin_spirv(r.key);
      ASSERT_FALSE(builtin.empty()) << r.key;
      EXPECT_TRUE(std::equal(r.spirv.begin(), r.spirv.end(), builtin.begin(), builtin.end()))
          << r.key;
    }
    EXPECT_EQ(routed, 10u);
  }
  const std::string packed = "q4gsw_gemv[layout=packed,wg=64,rows=2,load=u32x4,reduce=shared]";
  const std::string raw = "q4gsw_gemv[layout=raw,wg=64,rows=2,load=u32x4,reduce=shared]";
  const auto snapshot = tuned({{linear(1, 256, 256), packed, 1000, raw}});
  const Router router(snapshot, device().info());
  const Layer layer = make_layer(shape(), 1, 5);
  auto [graph, check] = run(layer, make_layer_data(layer, 42), router);
  const size_t q = 1;
  ASSERT_EQ(layer.nodes[q].name, "q_proj");
  EXPECT_EQ(graph.routes()[q].key, packed);
  EXPECT_EQ(graph.routes()[q].source, Source::exact);
  EXPECT_EQ(graph.routes()[q].plan.layout, "packed");
  EXPECT_FALSE(check.nodes[q].result.ok) << "q_proj ran the catalogue's shader, not the database's";
  EXPECT_FALSE(check.ok);
  EXPECT_TRUE(check.nodes[0].result.ok);  // attn_norm: built-in, the catalogue's SPIR-V
}

// A database that names a winner without its SPIR-V (tuned before SPIR-V was stored, or
// stripped): the engine has no compiler for tuned ops, so the built-in answer serves.
TEST_F(EngineTest, WinnerWithoutSpirvFallsBack) {
  const std::string gemv = "q4gsw_gemv[layout=packed,wg=64,rows=2,load=u32x4,reduce=shared]";
  const auto snapshot = tuned({{linear(1, 256, 256), gemv, 1000, "none"}});
  const Router router(snapshot, device().info());
  const Layer layer = make_layer(shape(), 1, 5);
  auto [graph, check] = run(layer, make_layer_data(layer, 43), router);
  expect_ok(check);
  const Route& q = route_of(graph, "q_proj");
  EXPECT_EQ(q.source, Source::fallback);
  EXPECT_EQ(q.key, "q4gsw_gemv[layout=raw,wg=64,rows=1,load=u32,reduce=shared]");
  EXPECT_NE(q.rejected.find("no SPIR-V"), std::string::npos) << q.rejected;
}

TEST_F(EngineTest, CheckCatchesAWrongNode) {
  const Layer layer = make_layer(shape(), 2, 7);
  LayerData data = make_layer_data(layer, 21);
  const Router router(nullptr, device().info());
  Graph graph = Graph::build(device(), compiler(), pipelines(), layer, data, router);
  graph.execute();
  // The reference now uses other weights for up's first output than the GPU did.
  const size_t up = 12;
  ASSERT_EQ(layer.nodes[up].name, "up_proj");
  for (uint32_t j = 0; j < layer.nodes[up].problem.k / 2; ++j) data.params[up].weight[j] ^= 0x88;
  const LayerCheck check = check_layer(graph, data, reference_layer(layer, data, {0, 1}));
  EXPECT_FALSE(check.ok);
  EXPECT_FALSE(check.nodes[up].result.ok);
  EXPECT_TRUE(check.nodes[up - 1].result.ok);  // gate
  EXPECT_FALSE(check.outputs[0].result.ok);    // out
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
    const Router router(tuned({{attention(1, 9, kernels::DType::f16), "sdpa_split_f16" + knobs}}),
                        device().info());
    auto [graph, check] = run(layer, data, router);
    expect_ok(check);
    const Route& r = route_of(graph, "attention");
    EXPECT_EQ(r.source, Source::exact);
    EXPECT_EQ(r.key, "sdpa_split_f16" + knobs);
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
  EXPECT_TRUE(changed.nodes[7].result.ok) << "attention on its GPU inputs";
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

TEST_F(EngineTest, BadShapesAreRefused) {
  auto refusal = [](const tuner::LayerShape& s, uint32_t m, uint32_t context) {
    try {
      make_layer(s, m, context);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_NE(refusal(tiny(), 3, 2).find("L must be at least M"), std::string::npos);
  EXPECT_NE(refusal(tiny(), 1, 0).find("L=0 is empty"), std::string::npos);
  tuner::LayerShape odd_groups = tiny();
  odd_groups.kv_heads = 3;
  EXPECT_NE(refusal(odd_groups, 1, 4).find("heads=4 is not a multiple of kv_heads=3"),
            std::string::npos);
  tuner::LayerShape odd_dim = tiny();
  odd_dim.head_dim = 15;
  EXPECT_NE(refusal(odd_dim, 1, 4).find("RoPE"), std::string::npos);
}

}  // namespace
}  // namespace vktune::engine
