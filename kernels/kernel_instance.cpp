// KernelInstance: legality -> compile -> pipeline -> upload -> record.
#include "kernels/kernel_instance.h"

#include <bit>
#include <cmath>
#include <limits>

#include "kernels/families/q4gsw_layout.h"

namespace vktune::kernels {
namespace {

std::vector<float> poison(size_t count) {
  return std::vector<float>(count, std::numeric_limits<float>::quiet_NaN());
}

std::vector<std::byte> push_constants(const Problem& p) {
  std::span<const std::byte> bytes;
  const Q4gswPush q4{p.m, p.n, p.k, p.group_size, p.has_bias ? 1u : 0u, packed_n(p.n), 0, 0};
  const RmsNormPush norm{p.m, p.n, p.eps, 0};
  bytes = p.op == Op::q4gsw ? vk::push_bytes(q4) : vk::push_bytes(norm);
  return {bytes.begin(), bytes.end()};
}

}  // namespace

std::shared_ptr<const vk::ComputePipeline> PipelineCache::get_or_create(
    const vk::Device& device, const std::string& key, const vk::PipelineDesc& desc) {
  {
    std::lock_guard lock(mutex_);
    if (auto it = pipelines_.find(key); it != pipelines_.end()) return it->second;
  }
  // Created unlocked so other keys compile meanwhile; a racing twin of this key is dropped.
  auto created =
      std::make_shared<const vk::ComputePipeline>(vk::ComputePipeline::create(device, desc));
  std::lock_guard lock(mutex_);
  return pipelines_.emplace(key, std::move(created)).first->second;
}

size_t PipelineCache::size() const {
  std::lock_guard lock(mutex_);
  return pipelines_.size();
}

std::shared_ptr<const vk::ComputePipeline> KernelInstance::pipeline(const vk::Device& device,
                                                                    ShaderCompiler& compiler,
                                                                    const Family& family,
                                                                    const Knobs& knobs,
                                                                    PipelineCache* cache) {
  const std::string key = family.key(knobs);
  const ShaderSpec spec = family.shader(knobs);
  auto spirv = compiler.compile(spec.file, spec.defines, key);
  const bool q4 = family.op() == Op::q4gsw;
  vk::PipelineDesc desc;
  desc.name = key;
  desc.spirv = *spirv;
  desc.buffer_count = q4 ? 6 : 3;  // q4gsw_common.glsl / rms_norm.comp
  desc.push_constant_bytes = q4 ? sizeof(Q4gswPush) : sizeof(RmsNormPush);
  // The SPIR-V of one key can change only with the embedded sources, i.e. not in one process.
  if (cache != nullptr) return cache->get_or_create(device, key, desc);
  return std::make_shared<const vk::ComputePipeline>(vk::ComputePipeline::create(device, desc));
}

KernelInstance KernelInstance::create(vk::Device& device, ShaderCompiler& compiler,
                                      const Family& family, const Knobs& knobs,
                                      const Problem& p, const ProblemData& data,
                                      uint32_t weight_copies, PipelineCache* cache) {
  require_valid(p);
  const Legality legal = family.legality(knobs, p, device.info());
  if (!legal) {
    throw IllegalVariant(family.key(knobs) + " cannot run " + describe(p) + ": " + legal.reason);
  }
  return create(device, compiler, family, knobs, p,
                ProblemBuffers::create(device, p, data, family.layout(knobs), weight_copies),
                cache);
}

KernelInstance KernelInstance::create(vk::Device& device, ShaderCompiler& compiler,
                                      const Family& family, const Knobs& knobs,
                                      const Problem& p,
                                      std::shared_ptr<const ProblemBuffers> inputs,
                                      PipelineCache* cache) {
  return create(device, compiler, family, knobs, p, std::move(inputs), ExternalBuffers{}, cache);
}

KernelInstance KernelInstance::create(vk::Device& device, ShaderCompiler& compiler,
                                      const Family& family, const Knobs& knobs,
                                      const Problem& p,
                                      std::shared_ptr<const ProblemBuffers> inputs,
                                      const ExternalBuffers& external, PipelineCache* cache) {
  require_valid(p);
  const Legality legal = family.legality(knobs, p, device.info());
  const std::string key = family.key(knobs);
  if (!legal) throw IllegalVariant(key + " cannot run " + describe(p) + ": " + legal.reason);
  const Layout layout = family.layout(knobs);
  if (!inputs || !(inputs->problem() == p) || inputs->layout() != layout) {
    throw std::invalid_argument(key + ": the inputs given are not " + describe(p) + " in the " +
                                layout_name(layout) + " layout");
  }

  const BindingSizes sizes = binding_sizes(p, layout);
  if (external.x == nullptr && !inputs->has_x()) {
    throw std::invalid_argument(key + ": the inputs hold weights only and no external x is given");
  }
  auto check_external = [&](const vk::Buffer* buffer, uint64_t bytes, const char* what) {
    if (buffer != nullptr && buffer->size() < bytes) {
      throw std::invalid_argument(key + ": the external " + what + " buffer holds " +
                                  std::to_string(buffer->size()) + " bytes; " + describe(p) +
                                  " needs " + std::to_string(bytes));
    }
  };
  check_external(external.x, sizes.x, "x");
  check_external(external.out, sizes.out, "output");
  const uint64_t workspace = p.op == Op::q4gsw ? family.workspace_bytes(knobs, p) : 0;
  check_external(external.workspace, workspace, "workspace");

  KernelInstance inst;
  inst.family_ = &family;
  inst.problem_ = p;
  inst.key_ = key;
  inst.groups_ = family.groups(knobs, p, device.info());
  inst.push_ = push_constants(p);
  inst.pipeline_ = pipeline(device, compiler, family, knobs, cache);
  inst.bytes_moved_ = sizes.x + sizes.weight + sizes.scales + sizes.bias + sizes.out;
  if (external.out != nullptr) {
    inst.external_out_ = external.out;
  } else {
    inst.output_.emplace(padded_buffer(device, sizes.out));
    inst.reset_output();
  }

  const vk::Buffer* x = external.x != nullptr ? external.x : &inputs->x();
  const vk::Buffer* out = &inst.output();
  if (p.op == Op::q4gsw) {
    // Bound even when the variant uses none: every q4gsw pipeline has the binding.
    inst.workspace_bytes_ = workspace;
    if (external.workspace != nullptr) {
      inst.external_workspace_ = external.workspace;
    } else {
      inst.workspace_.emplace(padded_buffer(device, workspace));
      if (workspace > 0) device.run([&](vk::CommandBuffer& cb) { cb.fill(*inst.workspace_, 0); });
    }
    const vk::Buffer* ws = external.workspace != nullptr ? external.workspace : &*inst.workspace_;
    for (uint32_t c = 0; c < inputs->weight_copies(); ++c) {
      const vk::Buffer* bindings[] = {x,   &inputs->weight(c), &inputs->scales(c),
                                      &inputs->vector(), out, ws};
      inst.sets_.push_back(inst.pipeline_->bind(bindings));
    }
  } else {
    const vk::Buffer* bindings[] = {x, &inputs->vector(), out};
    inst.sets_.push_back(inst.pipeline_->bind(bindings));
  }
  inst.inputs_ = std::move(inputs);
  return inst;
}

void KernelInstance::record(vk::CommandBuffer& commands, uint32_t copy_index) const {
  // rms_norm has no weight copies to rotate among: every index maps to its one set.
  const vk::DescriptorSet& set = sets_[copy_index % sets_.size()];
  commands.dispatch(*pipeline_, set, push_, groups_);
}

void KernelInstance::reset_output() {
  const std::vector<float> nan = poison(uint64_t{problem_.m} * problem_.n);
  output().upload(std::span<const float>(nan));
}

void KernelInstance::record_poison(vk::CommandBuffer& commands) const {
  const uint32_t nan = std::bit_cast<uint32_t>(std::numeric_limits<float>::quiet_NaN());
  commands.fill(output(), nan, uint64_t{problem_.m} * problem_.n * sizeof(float));
  if (workspace_bytes_ > 0) {
    const vk::Buffer& ws = external_workspace_ != nullptr ? *external_workspace_ : *workspace_;
    commands.fill(ws, 0, (workspace_bytes_ + 3) / 4 * 4);
  }
}

std::vector<float> KernelInstance::download_output() const {
  return output().download<float>(uint64_t{problem_.m} * problem_.n);
}

double KernelInstance::flops() const noexcept {
  const double mn = double(problem_.m) * problem_.n;
  return problem_.op == Op::q4gsw ? 2.0 * mn * problem_.k : 3.0 * mn;
}

}  // namespace vktune::kernels
