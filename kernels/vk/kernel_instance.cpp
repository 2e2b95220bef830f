// KernelInstance: legality -> compile -> pipeline -> upload -> record.
#include "kernels/vk/kernel_instance.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>

#include "kernels/vk/compiler_probe.h"
#include "kernels/families/q4gsw_layout.h"
#include "kernels/float16.h"

namespace vktune::kernels {

std::shared_ptr<const vk::ComputePipeline> PipelineCache::get_or_create(
    const vk::Device& device, const std::string& key, vk::PipelineDesc desc) {
  desc.driver_cache = driver_cache_;
  std::promise<std::shared_ptr<const vk::ComputePipeline>> promise;
  Made made;
  {
    std::lock_guard lock(mutex_);
    if (auto it = pipelines_.find(key); it != pipelines_.end()) {
      made = it->second;  // a copy: a failed entry goes while this thread waits on it
    } else {
      pipelines_.emplace(key, promise.get_future().share());
    }
  }
  if (made.valid()) return made.get();  // made or in the making by another thread
  // Created unlocked so other keys compile meanwhile; askers of this key wait on the promise.
  try {
    auto created =
        std::make_shared<const vk::ComputePipeline>(vk::ComputePipeline::create(device, desc));
    promise.set_value(created);
    return created;
  } catch (...) {
    {
      std::lock_guard lock(mutex_);
      pipelines_.erase(key);  // before the waiters hear: the map holds no failed entry
    }
    promise.set_exception(std::current_exception());
    throw;
  }
}

std::vector<std::shared_ptr<const vk::ComputePipeline>> PipelineCache::created() const {
  std::lock_guard lock(mutex_);
  std::vector<std::shared_ptr<const vk::ComputePipeline>> out;
  for (const auto& [key, made] : pipelines_) {
    if (made.wait_for(std::chrono::seconds(0)) == std::future_status::ready) {
      out.push_back(made.get());
    }
  }
  return out;
}

size_t PipelineCache::size() const { return created().size(); }

size_t PipelineCache::driver_cache_hits() const {
  return static_cast<size_t>(std::ranges::count_if(
      created(), [](const auto& pipeline) { return pipeline->from_driver_cache(); }));
}

std::shared_ptr<const vk::ComputePipeline> KernelInstance::pipeline(const vk::Device& device,
                                                                    ShaderCompiler& compiler,
                                                                    const Family& family,
                                                                    const Knobs& knobs,
                                                                    PipelineCache* cache) {
  const std::string key = family.key(knobs);
  const ShaderSpec spec = family.shader(knobs);
  auto spirv = compiler.compile(spec, key);
  const OpDescriptor& op = op_descriptor(family.op());
  vk::PipelineDesc desc;
  desc.name = key;
  desc.spirv = *spirv;
  desc.buffer_count = static_cast<uint32_t>(op.bindings.size());
  desc.push_constant_bytes = op.push_constant_bytes;
  desc.specialization = spec.specialization;
  // The SPIR-V of one key can change only with the embedded sources, i.e. not in one process.
  if (cache != nullptr) return cache->get_or_create(device, key, desc);
  return std::make_shared<const vk::ComputePipeline>(vk::ComputePipeline::create(device, desc));
}

KernelInstance KernelInstance::create(vk::Device& device, ShaderCompiler& compiler,
                                      const Family& family, const Knobs& knobs,
                                      const Problem& p, const ProblemData& data,
                                      uint32_t weight_copies, PipelineCache* cache) {
  require_valid(p);
  const Legality legal = family.legality(knobs, p, device.info(), linked_compiler_support());
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
  const Legality legal = family.legality(knobs, p, device.info(), linked_compiler_support());
  const std::string key = family.key(knobs);
  if (!legal) throw IllegalVariant(key + " cannot run " + describe(p) + ": " + legal.reason);
  const Layout layout = family.layout(knobs);
  if (!inputs || !(inputs->problem() == p) || inputs->layout() != layout) {
    throw std::invalid_argument(key + ": the inputs given are not " + describe(p) + " in the " +
                                layout_name(layout) + " layout");
  }

  const BindingSizes sizes = binding_sizes(p, layout);
  auto check_external = [&](const vk::Buffer* buffer, uint64_t bytes, const char* what) {
    if (buffer != nullptr && buffer->size() < bytes) {
      throw std::invalid_argument(key + ": the external " + what + " buffer holds " +
                                  std::to_string(buffer->size()) + " bytes; " + describe(p) +
                                  " needs " + std::to_string(bytes));
    }
  };
  check_external(external.out, sizes.out, "output");
  const uint64_t workspace = family.workspace_bytes(knobs, p);
  check_external(external.workspace, workspace, "workspace");

  KernelInstance inst;
  inst.family_ = &family;
  inst.problem_ = p;
  inst.key_ = key;
  inst.groups_ = family.groups(knobs, p, device.info());
  inst.push_ = push_constants(p);
  inst.pipeline_ = pipeline(device, compiler, family, knobs, cache);
  inst.bytes_moved_ = sizes.total();
  if (external.out != nullptr) {
    inst.external_out_ = external.out;
  } else {
    inst.output_.emplace(padded_buffer(device, sizes.out));
    inst.reset_output();
  }

  const vk::Buffer* out = &inst.output();
  const OpDescriptor& op = op_descriptor(p.op);
  const auto has = [&](BufferRole role) {
    return std::any_of(op.bindings.begin(), op.bindings.end(),
                       [&](const BindingDesc& b) { return b.role == role; });
  };
  const vk::Buffer* ws = nullptr;
  if (has(BufferRole::workspace)) {
    // Bound even when the variant uses none: every pipeline of the op has the binding.
    inst.workspace_bytes_ = workspace;
    if (external.workspace != nullptr) {
      inst.external_workspace_ = external.workspace;
    } else {
      inst.workspace_.emplace(padded_buffer(device, workspace));
      if (workspace > 0) device.run([&](vk::CommandBuffer& cb) { cb.fill(*inst.workspace_, 0); });
    }
    ws = external.workspace != nullptr ? external.workspace : &*inst.workspace_;
  }
  // One descriptor set per weight (or KV cache) copy, which record() rotates among.
  std::vector<std::vector<const vk::Buffer*>> sets;
  for (uint32_t c = 0; c < inputs->weight_copies(); ++c) {
    sets.push_back(inputs->bound(op, c, out, ws));
  }
  inst.sets_ = inst.pipeline_->bind_all(sets);
  inst.inputs_ = std::move(inputs);
  return inst;
}

void KernelInstance::record(vk::CommandBuffer& commands, uint32_t copy_index) const {
  // rms_norm has no weight copies to rotate among: every index maps to its one set.
  const vk::DescriptorSet& set = sets_[copy_index % sets_.size()];
  commands.dispatch(*pipeline_, set, push_, groups_);
}

void KernelInstance::set_length(uint32_t length) {
  if (!op_descriptor(problem_.op).n_is_length || length < problem_.m || length > problem_.n) {
    throw std::invalid_argument(key_ + ": set_length(" + std::to_string(length) + ") on " +
                                describe(problem_) +
                                "; only an op whose N is a length takes one, from M up to the N "
                                "it was created for");
  }
  Problem attended = problem_;
  attended.n = length;
  push_ = push_constants(attended);
}

void KernelInstance::reset_output() {
  const std::vector<float> nan(output_count(problem_),
                               std::numeric_limits<float>::quiet_NaN());
  output().upload(std::span<const std::byte>(encode(nan, problem_.dtype)));
}

void KernelInstance::record_poison(vk::CommandBuffer& commands) const {
  // Whole words: an odd count of fp16 outputs ends inside the buffer's 16-byte padding.
  const uint64_t bytes = output_count(problem_) * dtype_bytes(problem_.dtype);
  commands.fill(output(), nan_fill_word(problem_.dtype), (bytes + 3) / 4 * 4);
  record_workspace_reset(commands);
}

void KernelInstance::record_workspace_reset(vk::CommandBuffer& commands) const {
  if (workspace_bytes_ == 0) return;
  const vk::Buffer& ws = external_workspace_ != nullptr ? *external_workspace_ : *workspace_;
  commands.fill(ws, 0, (workspace_bytes_ + 3) / 4 * 4);
}

std::vector<float> KernelInstance::download_output() const {
  const std::vector<std::byte> bytes =
      output().download<std::byte>(output_count(problem_) * dtype_bytes(problem_.dtype));
  return decode(bytes, problem_.dtype);
}

double KernelInstance::flops() const noexcept { return kernels::flops(problem_); }

}  // namespace vktune::kernels
