// Graph: routing, prepacking, pipelines, and the one command buffer of the layer.
#include "tools/engine/graph.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <stdexcept>

#include "kernels/float16.h"
#include "kernels/problem_buffers.h"

namespace vktune::engine {
namespace {

constexpr uint32_t kElementwiseWg = 256;
// add and silu * mul round each output a few times (2^-24 each; exp a few ulps): 1e-5 of the
// output's magnitude leaves a wide margin; an fp16 output adds its own rounding.
double elementwise_tolerance(kernels::DType dtype) {
  return 1e-5 + (dtype == kernels::DType::f16 ? kernels::fp16_output_tolerance() : 0.0);
}

struct ElementwisePush {
  uint32_t count, pad0, pad1, pad2;
};

// `count` NaNs in `dtype`, to upload.
std::vector<std::byte> poison(size_t count, kernels::DType dtype) {
  return kernels::encode(std::vector<float>(count, std::numeric_limits<float>::quiet_NaN()), dtype);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

}  // namespace

Graph Graph::build(vk::Device& device, ShaderCompiler& compiler, kernels::PipelineCache& pipelines,
                   const Layer& layer, const LayerData& data, const Router& router) {
  if (data.params.size() != layer.nodes.size() ||
      data.x.size() != uint64_t{layer.m} * layer.shape.hidden) {
    throw std::invalid_argument("the layer data does not match the layer");
  }
  Graph g(device);
  g.layer_ = layer;
  for (const TensorSpec& t : layer.tensors) {
    g.tensors_.push_back(std::make_unique<vk::Buffer>(kernels::padded_buffer(
        device, uint64_t{layer.m} * t.width * kernels::dtype_bytes(layer.dtype))));
  }
  g.tensors_[0]->upload(std::span<const std::byte>(kernels::encode(data.x, layer.dtype)));

  for (size_t i = 0; i < layer.nodes.size(); ++i) {
    const Node& node = layer.nodes[i];
    vk::Buffer& out = *g.tensors_[node.output];
    const vk::Buffer& x = *g.tensors_[node.inputs[0]];
    if (node.routed()) {
      Route route = router.route(node.problem);
      const kernels::Family& family = *route.family;
      auto weights = kernels::ProblemBuffers::create_weights_only(
          device, node.problem, data.params[i], family.layout(route.knobs));
      g.kernels_.emplace_back(kernels::KernelInstance::create(
          device, compiler, family, route.knobs, node.problem, std::move(weights),
          kernels::KernelInstance::ExternalBuffers{&x, &out}, &pipelines));
      g.elementwise_.emplace_back();
      g.tolerances_.push_back(family.tolerance(node.problem));
      g.routes_.push_back(std::move(route));
      continue;
    }
    const std::string name(elementwise_shader(node.kind));
    Defines defines = {{"WG", std::to_string(kElementwiseWg)}};
    if (layer.dtype == kernels::DType::f16) defines.emplace_back("F16", "1");
    const auto spirv = compiler.compile(name + ".comp", defines, name);
    vk::PipelineDesc desc;
    desc.name = name + (layer.dtype == kernels::DType::f16 ? "_f16" : "");
    desc.spirv = *spirv;
    desc.buffer_count = 3;
    desc.push_constant_bytes = sizeof(ElementwisePush);
    auto pipeline = pipelines.get_or_create(device, desc.name, desc);
    const vk::Buffer* bindings[] = {&x, g.tensors_[node.inputs[1]].get(), &out};
    const uint32_t count = node.problem.m * node.problem.n;
    const ElementwisePush constants{count, 0, 0, 0};
    const auto push = vk::push_bytes(constants);
    const uint32_t groups = uint32_t(std::min<uint64_t>(
        kernels::ceil_div(count, kElementwiseWg), device.info().limits.max_workgroup_count[0]));
    g.elementwise_.push_back(Elementwise{
        pipeline, pipeline->bind(bindings), {push.begin(), push.end()}, {groups, 1, 1}});
    out.upload(std::span<const std::byte>(poison(count, layer.dtype)));
    g.kernels_.emplace_back();
    g.routes_.emplace_back();
    g.tolerances_.push_back(elementwise_tolerance(layer.dtype));
  }
  g.timestamps_.emplace(vk::TimestampPool::create(device, uint32_t(layer.nodes.size() + 1)));
  g.record();
  return g;
}

void Graph::record() {
  vk::CommandBuffer cb = vk::CommandBuffer::begin(*device_);
  cb.reset_timestamps(*timestamps_);
  // Earlier executions of this command buffer wrote what this one reads and overwrites.
  cb.barrier();
  cb.timestamp(*timestamps_, 0);
  std::set<size_t> written;  // tensors written since the last barrier
  for (size_t i = 0; i < layer_.nodes.size(); ++i) {
    const Node& node = layer_.nodes[i];
    const bool depends = std::any_of(node.inputs.begin(), node.inputs.end(),
                                     [&](size_t t) { return written.count(t) != 0; });
    if (depends) {
      cb.barrier();
      written.clear();
    }
    if (kernels_[i]) {
      kernels_[i]->record(cb);
    } else {
      const Elementwise& e = *elementwise_[i];
      cb.dispatch(*e.pipeline, e.set, e.push, e.groups);
    }
    written.insert(node.output);
    cb.timestamp(*timestamps_, uint32_t(i + 1));
  }
  // Makes the outputs visible to the host's downloads.
  cb.barrier();
  cb.end();
  commands_.emplace(std::move(cb));
}

double Graph::tolerance() const noexcept {
  return tolerances_.empty() ? 0.0 : *std::max_element(tolerances_.begin(), tolerances_.end());
}

void Graph::execute() { device_->submit(*commands_, kTimeout); }

GraphTimes Graph::time(uint32_t iterations, uint32_t warmup) {
  if (iterations == 0) throw std::invalid_argument("iterations must be at least 1");
  for (uint32_t i = 0; i < warmup; ++i) execute();
  const size_t nodes = layer_.nodes.size();
  std::vector<std::vector<double>> per_node(nodes);
  std::vector<double> totals;
  for (uint32_t it = 0; it < iterations; ++it) {
    execute();
    const std::vector<uint64_t> ts = timestamps_->read_ns();
    // Timestamps of one queue are monotonic; the guard only keeps a misbehaving driver's
    // values from wrapping around.
    auto span = [&](size_t a, size_t b) { return ts[b] > ts[a] ? double(ts[b] - ts[a]) : 0.0; };
    for (size_t i = 0; i < nodes; ++i) per_node[i].push_back(span(i, i + 1));
    totals.push_back(span(0, nodes));
  }
  GraphTimes t;
  t.iterations = iterations;
  for (auto& samples : per_node) t.node_ns.push_back(median(std::move(samples)));
  t.total_ns = median(std::move(totals));
  return t;
}

LayerCheck check_layer(const Graph& graph, const LayerData& data, const LayerReference& ref) {
  const Layer& layer = graph.layer();
  LayerCheck c;
  c.tolerance = graph.tolerance();
  std::vector<std::vector<float>> gpu;
  for (size_t t = 0; t < layer.tensors.size(); ++t) {
    gpu.push_back(select_rows(graph.download(t), layer.tensors[t].width, ref.rows));
  }
  for (size_t i = 0; i < layer.nodes.size(); ++i) {
    const Node& node = layer.nodes[i];
    std::vector<kernels::Reference> exact_inputs;
    for (size_t t : node.inputs) exact_inputs.push_back(exact(gpu[t]));
    std::vector<const kernels::Reference*> inputs;
    for (const kernels::Reference& r : exact_inputs) inputs.push_back(&r);
    const kernels::Reference expected = reference_node(layer, data, i, inputs, ref.rows.size());
    c.nodes.push_back({node.name, kernels::check(gpu[node.output], expected, graph.tolerance(i))});
  }
  for (size_t t : layer.outputs) {
    c.outputs.push_back(
        {layer.tensors[t].name, kernels::check(gpu[t], ref.tensors[t], c.tolerance)});
  }
  c.ok = true;
  for (const auto* list : {&c.nodes, &c.outputs}) {
    for (const TensorCheck& t : *list) c.ok = c.ok && t.result.ok;
  }
  return c;
}

std::vector<float> Graph::download(size_t index) const {
  const uint64_t count = uint64_t{layer_.m} * layer_.tensors.at(index).width;
  return kernels::decode(
      tensors_.at(index)->download<std::byte>(count * kernels::dtype_bytes(layer_.dtype)),
      layer_.dtype);
}

}  // namespace vktune::engine
