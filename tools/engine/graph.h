// A decoder layer built for one device: every node routed (tuned or built-in), and run the way
// any engine runs a vktune answer — the runtime's SPIR-V, its dispatch plan (bindings and sizes,
// push constants, workgroups) and its CPU prepack of the weights — with this engine's own
// Vulkan code; the elementwise nodes run the engine's own shaders. Pipelines are created once
// and the whole layer recorded into one command buffer, so that executing it is one submit. The
// attended context is push constants only, so a decode loop moves it with set_context and a
// re-record, never a rebuild; set_context re-asks the runtime for attention, whose answer
// changes with the context's tuned bucket, and swaps that one node's pipeline when it does.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "kernels/vk/kernel_instance.h"
#include "kernels/vk/shader_compiler.h"
#include "kernels/vk/buffer.h"
#include "kernels/vk/command_buffer.h"
#include "kernels/vk/device.h"
#include "kernels/vk/pipeline.h"
#include "kernels/vk/timestamp_pool.h"
#include "tools/engine/layer.h"
#include "tools/engine/layer_reference.h"
#include "tools/engine/routing.h"

namespace vktune::engine {

// GPU time of one execution of the graph, from timestamps at every node boundary. A node's
// time runs from the end of everything before it to its own end, so independent nodes recorded
// without a barrier between them (q, k and v) share the time they overlap, and the node times
// add up to the total.
struct GraphTimes {
  std::vector<double> node_ns;  // per node, median over the iterations
  double total_ns = 0;          // median over the iterations of the whole layer
  uint32_t iterations = 0;
};

class Graph {
 public:
  // Routes every routed node of `layer` through `router` (attention for the layer's context L)
  // and keeps a copy of `router` (the snapshot shared; the DeviceInfo it references must
  // outlive the graph) to re-ask for attention in set_context; creates its pipeline from the
  // route's SPIR-V (a tuned route whose pipeline the driver fails to create falls back to the
  // built-in routing, the driver's error in Route::rejected) and one buffer per binding of its plan:
  // the layer's tensors where the plan binds activations, the weights prepacked by the runtime
  // into the plan's layout, the other parameters and a zeroed workspace of the plan's sizes.
  // Uploads `data` (x, the caches and the RoPE table as given; every other tensor poisoned with
  // NaN), creates the elementwise pipelines through `compiler` and `pipelines` (compiled from
  // the embedded sources) and records the command buffer: a barrier before each node that reads
  // a tensor written since the last barrier, a timestamp at every node boundary. Throws what
  // Router::route throws, std::runtime_error when the runtime refuses to prepack, vk::Error on
  // Vulkan failures. `device`, `compiler` and `pipelines` must outlive the graph.
  static Graph build(vk::Device& device, ShaderCompiler& compiler,
                     kernels::PipelineCache& pipelines, const Layer& layer, const LayerData& data,
                     const Router& router);

  Graph(Graph&&) noexcept = default;
  Graph& operator=(Graph&&) noexcept = delete;
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;

  // One submit of a whole layer may take long on a software device (lavapipe runs the built-in
  // gemv of a Llama 3 8B layer in tens of seconds).
  static constexpr std::chrono::seconds kTimeout{300};

  // Executes the layer once (one submit) and waits; throws vk::Error on timeout or device loss.
  void execute();
  // From the next execution on, the M tokens sit at positions `context` - M .. `context` - 1
  // and attend positions up to theirs: pushed to the RoPE, append and attention dispatches,
  // and the command buffer re-recorded (buffers and weights stay). The runtime is asked again
  // for every node whose N is the context (the RoPEs and attention) at `context`
  // (microseconds): tuned problems are L buckets and a context nearer another bucket gets that
  // bucket's winner (docs/attention.md), so when the answer is another variant (key or SPIR-V)
  // the node switches to it; its pipeline, descriptor set and workspace are created the first
  // time, sized for the cache's capacity, and kept for every later switch back. routes()[i]
  // is the answer at `context`. Throws
  // std::invalid_argument unless M <= context <= the layer's L (the cache's capacity), what
  // Router::route throws, vk::Error creating a built-in's pipeline; a throw leaves the dispatches and
  // routes as they were (a variant created on the way is kept for later).
  void set_context(uint32_t context);
  uint32_t context() const noexcept { return context_; }
  // Timed executions go up to kCopiesPerSubmit to a submit, back to back, so the GPU does not
  // idle while the host reads each one's timestamps: a short layer (about 140 us at M 1 on the
  // H200) timed one submit at a time let the clock fall to less than half its peak
  // (docs/results/h200.md, "Attention in the layer and alone").
  static constexpr uint32_t kCopiesPerSubmit = 8;
  // `warmup` untimed executions, then `iterations` (>= 1) timed ones.
  GraphTimes time(uint32_t iterations, uint32_t warmup = 2);
  // What node `node` adds to the layer as an engine runs it, with no timestamp between nodes
  // (the tuner's way: a timestamp drains the GPU, where a barrier lets the next dispatch's launch
  // overlap): the median total of the layer recorded with a timestamp at its two ends only, and
  // the same without the node's dispatch (its output keeps what the last execution wrote),
  // `iterations` (>= 1) executions of each, interleaved. Throws std::out_of_range for a node past
  // the layer's, std::invalid_argument for 0 iterations.
  struct Marginal {
    double total_ns = 0;    // the whole layer, no node timestamps
    double without_ns = 0;  // the same without the node
    double adds_ns() const noexcept { return total_ns - without_ns; }
  };
  Marginal marginal(size_t node, uint32_t iterations);

  // Tensor `index` of the layer, [rows, width] (blocks; after an execution).
  std::vector<float> download(size_t index) const;

  const Layer& layer() const noexcept { return layer_; }
  // Per node, in order: the route of routed nodes (its SPIR-V is what the node's pipeline was
  // created from); elementwise nodes have an empty route.
  const std::vector<Route>& routes() const noexcept { return routes_; }
  // Tolerance of node `i` relative to the kernels' bounds: the chosen variant's
  // (the catalogue's Family::tolerance: the check's business, not the dispatch's), or a few
  // ulps' worth for elementwise nodes.
  double tolerance(size_t node) const { return tolerances_.at(node); }
  // The largest of them: what the layer's outputs are held to.
  double tolerance() const noexcept;
  // Distinct routed pipelines the graph holds, one per (key, SPIR-V): context variants
  // switched to by set_context included, each created once.
  size_t pipeline_count() const noexcept { return routed_pipelines_.size(); }

 private:
  // One node's dispatch: a routed node's plan, or an engine_*.comp shader's. The pipeline and
  // set are shared with the context variants kept for set_context.
  struct Dispatch {
    std::shared_ptr<const vk::ComputePipeline> pipeline;
    std::shared_ptr<const vk::DescriptorSet> set;
    std::vector<std::byte> push;
    std::array<uint32_t, 3> groups{};
  };
  // A variant the graph has run for a node whose N is the context (attention), ready to switch
  // back to.
  struct ContextVariant {
    size_t node = 0;
    std::string key;
    std::vector<uint32_t> spirv;
    runtime::DispatchPlan capacity_plan;  // at the cache's capacity: what its buffers hold
    Dispatch dispatch;                    // push constants and groups: the capacity plan's
  };

  explicit Graph(vk::Device& device) : device_(&device) {}
  // Node `node`'s dispatch of `route`: the pipeline of its (key, SPIR-V), created once, and a
  // set binding the layer's tensors where the plan names activations and buffers of the node's
  // own (weights prepacked from `params`, scales, norm weight, zeroed workspaces) elsewhere.
  // `params` may be null for a node that binds no weights (one that follows the context).
  Dispatch routed_dispatch(size_t node, const Route& route, const kernels::ProblemData* params);
  // The pipeline of `route`'s (key, SPIR-V): the one made before, or a new one. Throws vk::Error
  // when the driver fails to create it.
  std::shared_ptr<const vk::ComputePipeline> routed_pipeline(const Route& route);
  // `route` when its pipeline can be created; else, for a tuned route, the built-in routing's
  // variant for `problem` (Router::fallback, the driver's error as the reason), whose pipeline
  // is created here. Throws vk::Error for a built-in route whose pipeline fails.
  Route buildable(Route route, const kernels::Problem& problem, const Router& router);
  // The context variant of `route` for node `node`: one kept, or a new one planned at the
  // cache's capacity.
  const ContextVariant& context_variant(size_t node, const Route& route);
  // The layer's command buffer, `copies` executions back to back: a timestamp at every node
  // boundary (`node_timestamps`: copy c's at slots c * (nodes + 1) ...), else at its two ends
  // only (slots 2c and 2c + 1); without node `skip`'s dispatch when given.
  vk::CommandBuffer build_commands(bool node_timestamps, std::optional<size_t> skip = {},
                                   uint32_t copies = 1) const;
  void record();  // commands_: one execution, a timestamp at every node boundary
  // Executes `commands` (`copies` executions, timestamps at their two ends) once and returns
  // each copy's span.
  std::vector<double> run_timed(const vk::CommandBuffer& commands, uint32_t copies);

  vk::Device* device_;
  Layer layer_;
  uint32_t context_ = 0;
  std::optional<Router> router_;  // what build routed with: set_context re-asks it
  std::vector<Route> routes_;
  std::vector<double> tolerances_;
  // One buffer per tensor, then the routed nodes' own (weights, scales, norm weights,
  // workspaces); descriptor sets bind them, so each is heap-allocated once and never moves.
  std::vector<std::unique_ptr<vk::Buffer>> tensors_;
  std::vector<std::unique_ptr<vk::Buffer>> parameters_;
  std::vector<Dispatch> dispatches_;  // per node
  // Routed pipelines by (key, SPIR-V): a database's SPIR-V need not be this build's, so the key
  // alone does not name the binary.
  std::map<std::pair<std::string, std::vector<uint32_t>>,
           std::shared_ptr<const vk::ComputePipeline>>
      routed_pipelines_;
  std::vector<ContextVariant> context_variants_;
  std::optional<vk::TimestampPool> timestamps_;
  std::optional<vk::CommandBuffer> commands_;
};

// One tensor of the graph (after an execution) against a reference, on the reference's rows.
struct TensorCheck {
  std::string tensor;           // the tensor's name (node checks: the node's output)
  kernels::CheckResult result;  // max_error is relative to the reference's bounds
};

struct LayerCheck {
  double tolerance = 0;  // of the outputs, relative to the bounds: Graph::tolerance()
  // Every node on the GPU's own inputs (its inputs downloaded, taken as exact): the kernels'
  // correctness gate, node by node, with their tight bounds and Graph::tolerance(node).
  std::vector<TensorCheck> nodes;
  // The layer's outputs (out, k_cache, v_cache) against the fp64 reference of the whole layer,
  // with the bounds propagated through the graph.
  std::vector<TensorCheck> outputs;
  bool ok = false;
};
// Throws std::invalid_argument unless the graph attends the layer's whole context (the
// reference's).
LayerCheck check_layer(const Graph& graph, const LayerData& data, const LayerReference& ref);

}  // namespace vktune::engine
