// Graph: routing, the runtime's prepack and plans, pipelines, and the one command buffer of the
// layer.
#include "tools/engine/graph.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <stdexcept>

#include "kernels/family.h"
#include "kernels/float16.h"
#include "kernels/vk/error.h"
#include "runtime/dispatch.h"
#include "tools/engine/elementwise.h"

namespace vktune::engine {
namespace {

// add and silu * mul round each output a few times (2^-24 each; exp a few ulps): 1e-5 of
// the output's magnitude leaves a wide margin; an fp16 output adds its own rounding.
double elementwise_tolerance(kernels::DType dtype) {
  return 1e-5 + (dtype == kernels::DType::f16 ? kernels::fp16_output_tolerance() : 0.0);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// Whether node `node`'s N is the context (OpDescriptor::n_is_length: attention's attended
// positions), so set_context re-asks the runtime for it.
bool follows_context(const Node& node) {
  return node.routed() && kernels::op_descriptor(node.problem.op).n_is_length;
}

// The problem of a node that follows the context at `context`: the same shape over fewer
// positions.
kernels::Problem at_context(kernels::Problem problem, uint32_t context) {
  problem.n = context;
  return problem;
}

// `values` in the problem's dtype, as a plan's `bytes` of binding `name` says to upload them.
std::vector<std::byte> tensor_bytes(const std::vector<float>& values, kernels::DType dtype,
                                    const runtime::BindingPlan& b, const std::string& key) {
  std::vector<std::byte> bytes = kernels::encode(values, dtype);
  if (bytes.size() != b.bytes) {
    throw std::logic_error(key + ": the plan's " + std::string(b.name) + " is " +
                           std::to_string(b.bytes) + " bytes; the layer holds " +
                           std::to_string(bytes.size()));
  }
  return bytes;
}

}  // namespace

Graph Graph::build(vk::Device& device, ShaderCompiler& compiler, kernels::PipelineCache& pipelines,
                   const Layer& layer, const LayerData& data, const Router& router) {
  if (data.params.size() != layer.nodes.size()) {
    throw std::invalid_argument("the layer data does not match the layer");
  }
  Graph g(device);
  g.layer_ = layer;
  g.context_ = layer.context;
  for (size_t t = 0; t < layer.tensors.size(); ++t) {
    const TensorSpec& spec = layer.tensors[t];
    const uint64_t count = uint64_t{layer.rows(t)} * spec.width;
    // Whole 16-byte words, as a plan's alloc_bytes: the kernels load them at a tensor's end.
    const uint64_t bytes = std::max<uint64_t>(16, (count * kernels::dtype_bytes(spec.dtype) + 15) / 16 * 16);
    g.tensors_.push_back(std::make_unique<vk::Buffer>(vk::Buffer::create(device, bytes)));
    const std::vector<float>* initial = initial_values(layer, data, t);
    if (initial != nullptr && initial->size() != count) {
      throw std::invalid_argument("the layer data's " + spec.name + " does not match the layer");
    }
    // Every tensor a node computes starts as NaN, so one never written shows.
    const std::vector<float> values =
        initial != nullptr ? *initial
                           : std::vector<float>(count, std::numeric_limits<float>::quiet_NaN());
    g.tensors_[t]->upload(std::span<const std::byte>(kernels::encode(values, spec.dtype)));
  }

  g.router_.emplace(router);
  const uint32_t max_groups = device.info().limits.max_workgroup_count[0];
  for (size_t i = 0; i < layer.nodes.size(); ++i) {
    const Node& node = layer.nodes[i];
    if (!node.routed()) {
      std::vector<const vk::Buffer*> bindings;
      for (size_t t : node.inputs) bindings.push_back(g.tensors_[t].get());
      bindings.push_back(g.tensors_[node.output].get());
      const ElementwiseShader shader = elementwise_shader(layer, node, max_groups);
      const std::vector<std::byte> push = elementwise_push(layer, node, g.context_);
      const auto spirv = compiler.compile(shader.file, shader.defines, shader.key);
      vk::PipelineDesc desc;
      desc.name = shader.key;
      desc.spirv = *spirv;
      desc.buffer_count = uint32_t(bindings.size());
      desc.push_constant_bytes = uint32_t(push.size());
      auto pipeline = pipelines.get_or_create(device, desc.name, desc);
      g.dispatches_.push_back(Dispatch{
          pipeline, std::make_shared<const vk::DescriptorSet>(pipeline->bind(bindings)), push,
          {shader.groups, 1, 1}});
      g.routes_.emplace_back();
      g.tolerances_.push_back(elementwise_tolerance(layer.tensors[node.output].dtype));
      continue;
    }
    const kernels::Problem& p = node.problem;
    if (p.has_bias || p.eps != kernels::Problem{}.eps) {
      // The runtime's query carries neither (no bias, rms_norm's default eps): the plan would
      // leave the bias unbound or push another eps.
      throw std::invalid_argument(describe(node) +
                                  ": a bias or a non-default eps is not in the runtime's query");
    }
    Route route = g.buildable(router.route(p), p, router);
    if (follows_context(node)) {
      // Kept for set_context, which may switch away from it and back.
      g.dispatches_.push_back(g.context_variant(i, route).dispatch);
    } else {
      g.dispatches_.push_back(g.routed_dispatch(i, route, &data.params[i]));
    }
    g.tolerances_.push_back(kernels::find_family(route.family)->tolerance(p));
    g.routes_.push_back(std::move(route));
  }
  g.timestamps_.emplace(
      vk::TimestampPool::create(device, uint32_t(layer.nodes.size() + 1) * kCopiesPerSubmit));
  g.record();
  return g;
}

Graph::Dispatch Graph::routed_dispatch(size_t i, const Route& route,
                                       const kernels::ProblemData* params) {
  vk::Device& device = *device_;
  const Node& node = layer_.nodes[i];
  const kernels::Problem& p = node.problem;
  const runtime::DispatchPlan& plan = route.plan;
  // A buffer of the node's own, `bytes` uploaded (all zeros when empty).
  auto own = [&](const runtime::BindingPlan& b, std::span<const std::byte> bytes) {
    auto buffer = std::make_unique<vk::Buffer>(vk::Buffer::create(device, b.alloc_bytes));
    if (!bytes.empty()) {
      buffer->upload(bytes);
    } else {
      device.run([&](vk::CommandBuffer& cb) { cb.fill(*buffer, 0); });
    }
    parameters_.push_back(std::move(buffer));
    return parameters_.back().get();
  };
  // The node's host data for binding `b`; throws when the node has none.
  auto host = [&](const runtime::BindingPlan& b) -> const kernels::ProblemData& {
    if (params == nullptr) {
      throw std::logic_error(route.key + ": the plan binds " + std::string(b.name) +
                             ", which " + node.name + " has no data for");
    }
    return *params;
  };
  // Binding `b` of the plan: the node's inputs are its op's first read bindings in order (x
  // first), its output the op's out; every other binding is a buffer of the node's own.
  const std::span<const kernels::BindingDesc> roles = kernels::op_descriptor(p.op).bindings;
  size_t reads = 0;  // read bindings bound so far
  auto bind = [&](const runtime::BindingPlan& b) -> const vk::Buffer* {
    using kernels::BufferRole;
    const BufferRole role = roles[b.binding].role;
    const vk::Buffer* tensor = nullptr;
    if (role == BufferRole::out) tensor = tensors_[node.output].get();
    if (!b.written && reads < node.inputs.size()) tensor = tensors_[node.inputs[reads]].get();
    if (!b.written) ++reads;
    if (tensor != nullptr) {
      if (tensor->size() < b.alloc_bytes) {
        throw std::logic_error(route.key + ": the plan binds " + std::to_string(b.alloc_bytes) +
                               " bytes of " + std::string(b.name) + "; the layer's tensor holds " +
                               std::to_string(tensor->size()));
      }
      return tensor;
    }
    if (role == BufferRole::weight) {
      const kernels::ProblemData& d = host(b);
      std::vector<uint8_t> packed;
      const std::string e =
          runtime::prepack(plan.layout, d.weight, d.scales, p.n, p.k, p.group_size, packed);
      if (!e.empty()) throw std::runtime_error(route.key + ": " + e);
      if (packed.size() != b.bytes) {
        throw std::logic_error(route.key + ": prepacked " + std::to_string(packed.size()) +
                               " bytes; the plan binds " + std::to_string(b.bytes));
      }
      return own(b, std::as_bytes(std::span<const uint8_t>(packed)));
    }
    // Zero bytes: the variant does not read it (no bias; packed_s16 holds the scales).
    if (b.bytes == 0 || b.zero_once || role == BufferRole::workspace) return own(b, {});
    if (role == BufferRole::scales) {
      return own(b, tensor_bytes(host(b).scales, p.dtype, b, route.key));
    }
    if (role == BufferRole::vector) {
      return own(b, tensor_bytes(host(b).vector(), p.dtype, b, route.key));
    }
    throw std::logic_error(route.key + ": the plan binds " + std::string(b.name) + ", which " +
                           node.name + " has no tensor or data for");
  };
  const std::shared_ptr<const vk::ComputePipeline> pipeline = routed_pipeline(route);
  std::vector<const vk::Buffer*> bindings;
  for (const runtime::BindingPlan& b : plan.bindings) bindings.push_back(bind(b));
  return Dispatch{pipeline, std::make_shared<const vk::DescriptorSet>(pipeline->bind(bindings)),
                  plan.push_constants, plan.groups};
}

std::shared_ptr<const vk::ComputePipeline> Graph::routed_pipeline(const Route& route) {
  auto& pipeline = routed_pipelines_[{route.key, route.spirv}];
  if (!pipeline) {
    vk::PipelineDesc desc;
    desc.name = route.key;
    desc.spirv = route.spirv;
    desc.buffer_count = uint32_t(route.plan.bindings.size());
    desc.push_constant_bytes = uint32_t(route.plan.push_constants.size());
    desc.specialization = route.specialization;
    pipeline =
        std::make_shared<const vk::ComputePipeline>(vk::ComputePipeline::create(*device_, desc));
  }
  return pipeline;
}

Route Graph::buildable(Route route, const kernels::Problem& problem, const Router& router) {
  try {
    routed_pipeline(route);
    return route;
  } catch (const vk::Error& e) {
    if (route.source != Source::exact && route.source != Source::nearest) throw;
    routed_pipelines_.erase({route.key, route.spirv});
    Route builtin = router.fallback(problem, route, e.what());
    routed_pipeline(builtin);
    return builtin;
  }
}

const Graph::ContextVariant& Graph::context_variant(size_t i, const Route& route) {
  for (const ContextVariant& v : context_variants_) {
    if (v.node == i && v.key == route.key && v.spirv == route.spirv) return v;
  }
  // Sized for the whole cache, so that every context set_context allows fits its buffers.
  Route sized = route;
  const kernels::Problem capacity = at_context(layer_.nodes[i].problem, layer_.context);
  sized.plan = runtime::plan_dispatch(route.selection(), to_query(capacity),
                                      device_->info().limits.max_workgroup_count);
  if (!sized.plan.ok()) {
    throw std::runtime_error(route.key + " at the cache's " + std::to_string(layer_.context) +
                             " positions: " + sized.plan.error);
  }
  if (const std::string e = device_error(sized.plan, device_->info()); !e.empty()) {
    throw std::runtime_error(route.key + " at the cache's " + std::to_string(layer_.context) +
                             " positions: " + e);
  }
  ContextVariant v{i, route.key, route.spirv, sized.plan, routed_dispatch(i, sized, nullptr)};
  context_variants_.push_back(std::move(v));
  return context_variants_.back();
}

void Graph::set_context(uint32_t context) {
  if (context < layer_.m || context > layer_.context) {
    throw std::invalid_argument("context " + std::to_string(context) + " is outside M=" +
                                std::to_string(layer_.m) + " .. the cache's " +
                                std::to_string(layer_.context) + " positions");
  }
  // Everything is computed first, so that a throw leaves the graph as it was.
  std::vector<Dispatch> dispatches = dispatches_;
  std::vector<std::pair<size_t, Route>> rerouted;
  for (size_t i = 0; i < layer_.nodes.size(); ++i) {
    const Node& node = layer_.nodes[i];
    if (!node.routed()) {
      dispatches[i].push = elementwise_push(layer_, node, context);
    } else if (follows_context(node)) {
      // The runtime's answer at the new context (its plan included), run by the variant's
      // pipeline over the buffers bound for the whole cache.
      Route route = buildable(router_->route(at_context(node.problem, context)),
                              at_context(node.problem, context), *router_);
      const ContextVariant& v = context_variant(i, route);
      for (size_t b = 0; b < route.plan.bindings.size(); ++b) {
        if (route.plan.bindings[b].alloc_bytes > v.capacity_plan.bindings.at(b).alloc_bytes) {
          throw std::logic_error(route.key + ": " + std::string(route.plan.bindings[b].name) +
                                 " grows at context " + std::to_string(context));
        }
      }
      dispatches[i] = {v.dispatch.pipeline, v.dispatch.set, route.plan.push_constants,
                       route.plan.groups};
      rerouted.emplace_back(i, std::move(route));
    }
  }
  for (auto& [i, route] : rerouted) {
    tolerances_[i] = kernels::find_family(route.family)->tolerance(layer_.nodes[i].problem);
    routes_[i] = std::move(route);
  }
  dispatches_ = std::move(dispatches);
  context_ = context;
  record();
}

vk::CommandBuffer Graph::build_commands(bool node_timestamps, std::optional<size_t> skip,
                                        uint32_t copies) const {
  vk::CommandBuffer cb = vk::CommandBuffer::begin(*device_);
  cb.reset_timestamps(*timestamps_);
  const size_t n = layer_.nodes.size();
  const uint32_t stride = node_timestamps ? uint32_t(n + 1) : 2;
  for (uint32_t copy = 0; copy < copies; ++copy) {
    const uint32_t base = copy * stride;
    // Earlier executions wrote what this one reads and overwrites.
    cb.barrier();
    cb.timestamp(*timestamps_, base);
    std::set<size_t> written;  // tensors written since the last barrier
    for (size_t i = 0; i < n; ++i) {
      const Node& node = layer_.nodes[i];
      const bool depends = std::any_of(node.inputs.begin(), node.inputs.end(),
                                       [&](size_t t) { return written.count(t) != 0; });
      if (depends) {
        cb.barrier();
        written.clear();
      }
      const Dispatch& d = dispatches_[i];
      if (skip != i) cb.dispatch(*d.pipeline, *d.set, d.push, d.groups);
      written.insert(node.output);
      if (node_timestamps) {
        cb.timestamp(*timestamps_, base + uint32_t(i + 1));
      } else if (i + 1 == n) {
        cb.timestamp(*timestamps_, base + 1);
      }
    }
  }
  // Makes the outputs visible to the host's downloads.
  cb.barrier();
  cb.end();
  return cb;
}

void Graph::record() { commands_.emplace(build_commands(true)); }

double Graph::tolerance() const noexcept {
  return tolerances_.empty() ? 0.0 : *std::max_element(tolerances_.begin(), tolerances_.end());
}

void Graph::execute() { device_->submit(*commands_, kTimeout); }

std::vector<double> Graph::run_timed(const vk::CommandBuffer& commands, uint32_t copies) {
  device_->submit(commands, kTimeout);
  const std::vector<uint64_t> ts = timestamps_->read_ns(2 * copies);
  std::vector<double> spans;
  for (uint32_t c = 0; c < copies; ++c) {
    spans.push_back(ts[2 * c + 1] > ts[2 * c] ? double(ts[2 * c + 1] - ts[2 * c]) : 0.0);
  }
  return spans;
}

Graph::Marginal Graph::marginal(size_t node, uint32_t iterations) {
  if (node >= layer_.nodes.size()) {
    throw std::out_of_range("node " + std::to_string(node) + " is past the layer's " +
                            std::to_string(layer_.nodes.size()));
  }
  if (iterations == 0) throw std::invalid_argument("iterations must be at least 1");
  const uint32_t copies = std::min(iterations, kCopiesPerSubmit);
  const vk::CommandBuffer with = build_commands(false, {}, copies);
  const vk::CommandBuffer without = build_commands(false, node, copies);
  run_timed(with, copies);  // a warm-up, and the node's output written for the runs without it
  std::vector<double> totals, rest;
  while (totals.size() < iterations) {
    const size_t take = std::min<size_t>(copies, iterations - totals.size());
    const std::vector<double> a = run_timed(with, copies), b = run_timed(without, copies);
    totals.insert(totals.end(), a.begin(), a.begin() + static_cast<ptrdiff_t>(take));
    rest.insert(rest.end(), b.begin(), b.begin() + static_cast<ptrdiff_t>(take));
  }
  return {median(std::move(totals)), median(std::move(rest))};
}

GraphTimes Graph::time(uint32_t iterations, uint32_t warmup) {
  if (iterations == 0) throw std::invalid_argument("iterations must be at least 1");
  for (uint32_t i = 0; i < warmup; ++i) execute();
  const size_t nodes = layer_.nodes.size();
  const uint32_t copies = std::min(iterations, kCopiesPerSubmit);
  const vk::CommandBuffer batch = build_commands(true, {}, copies);
  std::vector<std::vector<double>> per_node(nodes);
  std::vector<double> totals;
  while (totals.size() < iterations) {
    device_->submit(batch, kTimeout);
    const std::vector<uint64_t> ts = timestamps_->read_ns(copies * uint32_t(nodes + 1));
    // Timestamps of one queue are monotonic; the guard only keeps a misbehaving driver's
    // values from wrapping around.
    auto span = [&](size_t a, size_t b) { return ts[b] > ts[a] ? double(ts[b] - ts[a]) : 0.0; };
    for (size_t c = 0; c < copies && totals.size() < iterations; ++c) {
      const size_t base = c * (nodes + 1);
      for (size_t i = 0; i < nodes; ++i) per_node[i].push_back(span(base + i, base + i + 1));
      totals.push_back(span(base, base + nodes));
    }
  }
  GraphTimes t;
  t.iterations = iterations;
  for (auto& samples : per_node) t.node_ns.push_back(median(std::move(samples)));
  t.total_ns = median(std::move(totals));
  return t;
}

LayerCheck check_layer(const Graph& graph, const LayerData& data, const LayerReference& ref) {
  const Layer& layer = graph.layer();
  if (graph.context() != layer.context) {
    throw std::invalid_argument("check_layer: the graph attends " +
                                std::to_string(graph.context()) + " positions, the reference " +
                                std::to_string(layer.context));
  }
  LayerCheck c;
  c.tolerance = graph.tolerance();
  std::vector<std::vector<float>> gpu;
  for (size_t t = 0; t < layer.tensors.size(); ++t) gpu.push_back(graph.download(t));
  // Tensor `t` on `rows` (of its own: token rows, or cache positions).
  auto on_rows = [&](size_t t, std::span<const uint32_t> rows) {
    return select_rows(gpu[t], layer.tensors[t].width, rows);
  };
  for (size_t i = 0; i < layer.nodes.size(); ++i) {
    const Node& node = layer.nodes[i];
    const std::vector<uint32_t> rows = node_rows(layer, i, ref.rows);
    std::vector<kernels::Reference> exact_inputs;
    for (size_t t : node.inputs) {
      exact_inputs.push_back(exact(layer.tensors[t].rows == Rows::tokens ? on_rows(t, rows) : gpu[t]));
    }
    std::vector<const kernels::Reference*> inputs;
    for (const kernels::Reference& r : exact_inputs) inputs.push_back(&r);
    const kernels::Reference expected = reference_node(layer, data, i, inputs, rows);
    std::vector<uint32_t> written = rows;  // a cache's rows are the tokens' positions
    if (layer.tensors[node.output].rows == Rows::context) {
      for (uint32_t& r : written) r += layer.first_position();
    }
    const std::vector<float> out = on_rows(node.output, written);
    const Route& route = graph.routes()[i];
    if (route.family.empty()) {
      c.nodes.push_back({node.name, kernels::check(out, expected, graph.tolerance(i))});
    } else {
      // The routed family's tolerance for this node's own inputs (Family::tolerance_on).
      const std::vector<double> tol = kernels::find_family(route.family)
                                          ->tolerance_on(node.problem, exact_inputs[0].values,
                                                         data.params[i], expected);
      c.nodes.push_back({node.name, kernels::check(out, expected, tol)});
    }
  }
  for (size_t t : layer.outputs) {
    c.outputs.push_back({layer.tensors[t].name,
                         kernels::check(on_rows(t, tensor_rows(layer, t, ref.rows)),
                                        ref.tensors[t], c.tolerance)});
  }
  c.ok = true;
  for (const auto* list : {&c.nodes, &c.outputs}) {
    for (const TensorCheck& t : *list) c.ok = c.ok && t.result.ok;
  }
  return c;
}

std::vector<float> Graph::download(size_t index) const {
  const TensorSpec& spec = layer_.tensors.at(index);
  const uint64_t count = uint64_t{layer_.rows(index)} * spec.width;
  return kernels::decode(
      tensors_.at(index)->download<std::byte>(count * kernels::dtype_bytes(spec.dtype)),
      spec.dtype);
}

}  // namespace vktune::engine
