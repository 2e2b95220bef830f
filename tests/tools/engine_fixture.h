// The engine tests' fixture: the lavapipe device, a tiny tuned database as a runtime snapshot,
// one run of a layer checked against the fp64 reference, and the shapes the tests build (the
// smoke preset's layer; a tiny GQA one for attention).
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "db/store.h"
#include "kernels/knobs.h"
#include "runtime/snapshot.h"
#include "tests/kernels/vulkan_fixture.h"
#include "tools/engine/graph.h"
#include "tools/engine/layer_reference.h"
#include "tuner/records.h"

namespace vktune::engine {

using kernels::Op;
using kernels::Problem;

struct Winner {
  Problem problem;
  std::string key;  // canonical variant key
  double median_ns = 1000;
  // The SPIR-V stored with it: the key's own (compiled from the catalogue) when empty, another
  // variant's when a key, none when "none", the key's own without its last instruction
  // (OpFunctionEnd: a valid header over a body SPIRV-Tools refuses) when "broken".
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
        if (!w.spirv_of.empty() && w.spirv_of != "broken") {
          const kernels::ParsedKey other = kernels::parse_key(w.spirv_of);
          source = tuner::kernel_record(*kernels::find_family(other.family), other.knobs, nullptr);
        }
        kernel.spirv = tuner::compile_spirv(compiler(), source);
        if (w.spirv_of == "broken") kernel.spirv->resize(kernel.spirv->size() - 4);
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
  static models::LayerShape tiny() {
    return {.hidden = 64, .ffn = 128, .group_size = 32, .heads = 4, .kv_heads = 2,
            .head_dim = 16, .layers = 3};
  }
  static const models::LayerShape& shape() {
    static const models::LayerShape s = models::preset_layer("smoke");
    return s;
  }
  static Problem linear(uint32_t m, uint32_t n, uint32_t k) {
    return {Op("q4gsw"), m, n, k, shape().group_size, false};
  }
  static Problem norm(uint32_t m) {
    return {Op("rms_norm"), m, shape().hidden, shape().hidden, 0, false};
  }
  // The tiny layer's attention: `m` tokens attending `context` positions.
  static Problem attention(uint32_t m, uint32_t context, kernels::DType dtype) {
    Problem p{Op("sdpa"), m, context, tiny().head_dim, 0, false};
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

}  // namespace vktune::engine
