// The decoder-layer engine on the smoke preset's layer (lavapipe here): built with built-in
// routing and with a tiny tuned database, it matches the fp64 reference node by node and end to
// end; it runs the runtime's SPIR-V (a database's included, whatever the catalogue's shader
// says); a database winner that cannot run on the device, or comes without SPIR-V, falls back
// to built-in routing; every node says how its variant was found; bad shapes are refused.
// (Attention over the cache and decode: engine_attention_test.cpp.)
#include <gtest/gtest.h>

#include <algorithm>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "runtime/builtin_spirv.h"
#include "tests/tools/engine_fixture.h"

namespace vktune::engine {
namespace {

TEST_F(EngineTest, LayerGraphHasTheDecoderNodes) {
  const Layer layer = make_layer(shape(), 3, 10);
  ASSERT_EQ(layer.nodes.size(), 17u);
  EXPECT_EQ(layer.nodes[8].name, "attention");
  EXPECT_EQ(layer.nodes[8].inputs, (std::vector<size_t>{layer.tensor("q_rot"),
                                                        layer.tensor("k_cache"),
                                                        layer.tensor("v_cache")}));
  Problem sdpa{Op("sdpa"), 3, 10, 32, 0, false};
  sdpa.heads = 8;
  sdpa.kv_heads = 2;
  EXPECT_EQ(layer.nodes[8].problem, sdpa);
  EXPECT_EQ(layer.nodes[9].name, "o_proj");
  EXPECT_EQ(layer.nodes[9].inputs, std::vector<size_t>{layer.tensor("attn")});
  EXPECT_EQ(layer.nodes[9].problem, linear(3, 256, 256));
  EXPECT_EQ(layer.nodes[15].problem, linear(3, 256, 512));  // down
  EXPECT_EQ(layer.nodes[2].problem, linear(3, 64, 256));    // k
  // RoPE is routed: the key heads' at the tokens' positions of the context's table, then
  // appended to the cache.
  Problem rope_k{Op("rope"), 3, 10, 32, 0, false};
  rope_k.heads = 2;
  EXPECT_EQ(layer.nodes[5].name, "rope_k");
  EXPECT_EQ(layer.nodes[5].problem, rope_k);
  EXPECT_TRUE(layer.nodes[5].routed());
  EXPECT_EQ(layer.nodes[5].inputs,
            (std::vector<size_t>{layer.tensor("k"), layer.tensor("rope_table")}));
  EXPECT_EQ(layer.nodes[6].inputs, std::vector<size_t>{layer.tensor("k_rot")});
  EXPECT_EQ(layer.nodes[6].output, layer.tensor("k_cache"));  // append_k
  EXPECT_EQ(layer.nodes[4].problem.heads, 8u);                // rope_q: every query head
  EXPECT_EQ(layer.rows(layer.tensor("k_cache")), 10u);
  EXPECT_EQ(layer.nodes.back().inputs,
            (std::vector<size_t>{layer.tensor("h"), layer.tensor("down")}));
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
      EXPECT_EQ(count_routes(graph.routes()), (RouteCounts{0, 0, 12, 0})) << "M=" << m;
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

// What a node adds to the layer: the layer timed with a timestamp at its two ends only, with and
// without the node's dispatch; the runs without it leave the layer as the full runs wrote it.
TEST_F(EngineTest, MarginalTimesTheLayerWithAndWithoutANode) {
  const Layer layer = make_layer(shape(), 1, 6);
  const LayerData data = make_layer_data(layer, 8);
  auto [graph, check] = run(layer, data, Router(nullptr, device().info()));
  expect_ok(check);
  size_t attention = 0;
  while (layer.nodes[attention].kind != NodeKind::attention) ++attention;
  const Graph::Marginal m = graph.marginal(attention, 2);
  EXPECT_GT(m.total_ns, 0);
  EXPECT_GT(m.without_ns, 0);
  expect_ok(check_layer(graph, data, reference_layer(layer, data, rows_to_check(layer))));
  EXPECT_THROW(graph.marginal(layer.nodes.size(), 1), std::out_of_range);
  EXPECT_THROW(graph.marginal(attention, 0), std::invalid_argument);
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
    // winner is nearer than the M=5 tiled one) and down (K=512). Nothing tuned for the RoPEs
    // and attention: built-in.
    EXPECT_EQ(count_routes(graph.routes()), (RouteCounts{4, 5, 3, 0}));
    const Route& q = route_of(graph, "q_proj");
    EXPECT_EQ(q.source, Source::exact);
    EXPECT_EQ(q.key, gemv);
    EXPECT_EQ(q.device_match, runtime::DeviceMatch::exact);
    EXPECT_EQ(q.plan.layout, "packed");  // prepacked at build by the runtime
    // The tuner's time of q's very problem, what the layer's node time compares to; k's nearest
    // winner was timed on another problem, so it has none.
    EXPECT_EQ(q.tuned_ns, Winner{}.median_ns);
    const Route& k = route_of(graph, "k_proj");
    EXPECT_EQ(k.source, Source::nearest);
    EXPECT_FALSE(k.tuned_ns);
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
  // allow (and fall back), else built-in routing, as the RoPEs and attention do; nothing the device cannot
  // run is used.
  const RouteCounts counts = count_routes(graph.routes());
  EXPECT_EQ(counts.exact, 2u);  // the norms
  EXPECT_EQ(counts.nearest, 0u);
  EXPECT_GE(counts.fallback, 2u);
  EXPECT_EQ(counts.fallback + counts.builtin, 10u);
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
    EXPECT_EQ(routed, 12u);
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

// A database whose winner for q_proj carries a module with a valid header and a broken body
// (written by other means than import, which refuses it): SPIRV-Tools' validator refuses it
// before the driver sees it, and that node alone runs the built-in, saying why.
TEST_F(EngineTest, WinnerWithBrokenSpirvFallsBackForThatNode) {
  const std::string gemv = "q4gsw_gemv[layout=packed,wg=64,rows=2,load=u32x4,reduce=shared]";
  const std::string raw = "q4gsw_gemv[layout=raw,wg=64,rows=2,load=u32x4,reduce=shared]";
  const auto snapshot = tuned({{linear(1, 256, 256), gemv, 1000, "broken"},
                               {linear(1, 64, 256), raw, 1000}});
  const Router router(snapshot, device().info());
  const Layer layer = make_layer(shape(), 1, 5);
  auto [graph, check] = run(layer, make_layer_data(layer, 44), router);
  expect_ok(check);
  const Route& q = route_of(graph, "q_proj");
  EXPECT_EQ(q.source, Source::fallback);
  EXPECT_EQ(q.key, "q4gsw_gemv[layout=raw,wg=64,rows=1,load=u32,reduce=shared]");
  EXPECT_NE(q.rejected.find(gemv + " (exact"), std::string::npos) << q.rejected;
  EXPECT_NE(q.rejected.find("fails SPIR-V validation"), std::string::npos) << q.rejected;
  const Route& k = route_of(graph, "k_proj");
  EXPECT_EQ(k.source, Source::exact);
  EXPECT_EQ(k.key, raw);
}

TEST_F(EngineTest, CheckCatchesAWrongNode) {
  const Layer layer = make_layer(shape(), 2, 7);
  LayerData data = make_layer_data(layer, 21);
  const Router router(nullptr, device().info());
  Graph graph = Graph::build(device(), compiler(), pipelines(), layer, data, router);
  graph.execute();
  // The reference now uses other weights for up's first output than the GPU did.
  const size_t up = 13;
  ASSERT_EQ(layer.nodes[up].name, "up_proj");
  for (uint32_t j = 0; j < layer.nodes[up].problem.k / 2; ++j) data.params[up].weight[j] ^= 0x88;
  const LayerCheck check = check_layer(graph, data, reference_layer(layer, data, {0, 1}));
  EXPECT_FALSE(check.ok);
  EXPECT_FALSE(check.nodes[up].result.ok);
  EXPECT_TRUE(check.nodes[up - 1].result.ok);  // gate
  EXPECT_FALSE(check.outputs[0].result.ok);    // out
}

TEST_F(EngineTest, BadShapesAreRefused) {
  auto refusal = [](const models::LayerShape& s, uint32_t m, uint32_t context) {
    try {
      make_layer(s, m, context);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_NE(refusal(tiny(), 3, 2).find("L must be at least M"), std::string::npos);
  EXPECT_NE(refusal(tiny(), 1, 0).find("L=0 is empty"), std::string::npos);
  models::LayerShape odd_groups = tiny();
  odd_groups.kv_heads = 3;
  EXPECT_NE(refusal(odd_groups, 1, 4).find("heads=4 is not a multiple of kv_heads=3"),
            std::string::npos);
  models::LayerShape odd_dim = tiny();
  odd_dim.head_dim = 15;
  EXPECT_NE(refusal(odd_dim, 1, 4).find("RoPE"), std::string::npos);
}

}  // namespace
}  // namespace vktune::engine
