// KernelInstance: legality -> compile -> pipeline -> upload -> record.
#include "kernels/kernel_instance.h"

#include <cmath>
#include <cstring>
#include <limits>

#include "kernels/families/q4gsw_layout.h"

namespace vktune::kernels {
namespace {

// Allocations are padded so that shaders reading whole words or 16-byte blocks at the end of a
// tensor stay inside the buffer.
vk::Buffer make_buffer(vk::Device& device, uint64_t bytes) {
  return vk::Buffer::create(device, std::max<uint64_t>(16, ceil_div(bytes, 16) * 16));
}

template <typename T>
void upload(vk::Buffer& buffer, const std::vector<T>& values) {
  if (!values.empty()) buffer.upload(std::as_bytes(std::span<const T>(values)));
}

std::vector<float> poison(size_t count) {
  return std::vector<float>(count, std::numeric_limits<float>::quiet_NaN());
}

}  // namespace

std::shared_ptr<const vk::ComputePipeline> PipelineCache::get_or_create(
    const vk::Device& device, const std::string& key, const vk::PipelineDesc& desc) {
  std::lock_guard lock(mutex_);
  auto& slot = pipelines_[key];
  if (!slot) slot = std::make_shared<const vk::ComputePipeline>(vk::ComputePipeline::create(device, desc));
  return slot;
}

size_t PipelineCache::size() const {
  std::lock_guard lock(mutex_);
  return pipelines_.size();
}

KernelInstance KernelInstance::create(vk::Device& device, ShaderCompiler& compiler,
                                      const Family& family, const Knobs& knobs,
                                      const Problem& p, const ProblemData& data,
                                      uint32_t weight_copies, PipelineCache* cache) {
  require_valid(p);
  const Legality legal = family.legality(knobs, p, device.info());
  const std::string key = family.key(knobs);
  if (!legal) throw IllegalVariant(key + " cannot run " + describe(p) + ": " + legal.reason);
  if (weight_copies == 0) throw std::invalid_argument("weight_copies must be at least 1");

  KernelInstance inst;
  inst.family_ = &family;
  inst.problem_ = p;
  inst.key_ = key;
  inst.groups_ = family.groups(knobs, p, device.info());

  const ShaderSpec spec = family.shader(knobs);
  auto spirv = compiler.compile(spec.file, spec.defines, key);
  const bool q4 = p.op == Op::q4gsw;
  const Layout layout = family.layout(knobs);
  if (q4) {
    const Q4gswPush push{p.m, p.n, p.k, p.group_size, p.has_bias ? 1u : 0u, packed_n(p.n), 0, 0};
    const auto bytes = vk::push_bytes(push);
    inst.push_.assign(bytes.begin(), bytes.end());
  } else {
    const RmsNormPush push{p.m, p.n, p.eps, 0};
    const auto bytes = vk::push_bytes(push);
    inst.push_.assign(bytes.begin(), bytes.end());
  }
  vk::PipelineDesc desc;
  desc.name = key;
  desc.spirv = *spirv;
  desc.buffer_count = q4 ? 5 : 3;
  desc.push_constant_bytes = static_cast<uint32_t>(inst.push_.size());
  if (cache != nullptr) {
    // The SPIR-V of one key can change only with the embedded sources, i.e. not in one process.
    inst.pipeline_ = cache->get_or_create(device, key, desc);
  } else {
    inst.pipeline_ = std::make_shared<const vk::ComputePipeline>(
        vk::ComputePipeline::create(device, desc));
  }

  const BindingSizes sizes = binding_sizes(p, layout);
  inst.bytes_moved_ = sizes.x + sizes.weight + sizes.scales + sizes.bias + sizes.out;
  auto& buffers = inst.buffers_;
  buffers.reserve(3 + 2 * weight_copies);
  if (q4) {
    if (data.x.size() != uint64_t{p.m} * p.k || data.weight.size() != uint64_t{p.n} * (p.k / 2) ||
        data.scales.size() != uint64_t{p.k / p.group_size} * p.n ||
        data.bias.size() != (p.has_bias ? p.n : 0u)) {
      throw std::invalid_argument("ProblemData does not match " + describe(p));
    }
    buffers.push_back(make_buffer(device, sizes.x));
    upload(buffers.back(), data.x);
    buffers.push_back(make_buffer(device, sizes.bias));
    upload(buffers.back(), data.bias);
    const std::vector<uint8_t> packed =
        layout == Layout::packed ? prepack(data.weight, p.n, p.k) : std::vector<uint8_t>{};
    const std::vector<uint8_t>& weight = layout == Layout::packed ? packed : data.weight;
    for (uint32_t c = 0; c < weight_copies; ++c) {
      buffers.push_back(make_buffer(device, sizes.weight));
      upload(buffers.back(), weight);
      buffers.push_back(make_buffer(device, sizes.scales));
      upload(buffers.back(), data.scales);
    }
  } else {
    if (data.x.size() != uint64_t{p.m} * p.n || data.norm_weight.size() != p.n) {
      throw std::invalid_argument("ProblemData does not match " + describe(p));
    }
    buffers.push_back(make_buffer(device, sizes.x));
    upload(buffers.back(), data.x);
    buffers.push_back(make_buffer(device, sizes.bias));
    upload(buffers.back(), data.norm_weight);
  }
  inst.out_index_ = buffers.size();
  buffers.push_back(make_buffer(device, sizes.out));
  inst.reset_output();

  const vk::Buffer* out = &buffers[inst.out_index_];
  if (q4) {
    for (uint32_t c = 0; c < weight_copies; ++c) {
      const vk::Buffer* bindings[] = {&buffers[0], &buffers[2 + 2 * c], &buffers[3 + 2 * c],
                                      &buffers[1], out};
      inst.sets_.push_back(inst.pipeline_->bind(bindings));
    }
  } else {
    const vk::Buffer* bindings[] = {&buffers[0], &buffers[1], out};
    inst.sets_.push_back(inst.pipeline_->bind(bindings));
  }
  return inst;
}

void KernelInstance::record(vk::CommandBuffer& commands, uint32_t copy_index) const {
  // rms_norm has no weight copies to rotate among: every index maps to its one set.
  const vk::DescriptorSet& set = sets_[copy_index % sets_.size()];
  commands.dispatch(*pipeline_, set, push_, groups_);
}

void KernelInstance::reset_output() {
  upload(buffers_[out_index_], poison(uint64_t{problem_.m} * problem_.n));
}

std::vector<float> KernelInstance::download_output() const {
  return buffers_[out_index_].download<float>(uint64_t{problem_.m} * problem_.n);
}

double KernelInstance::flops() const noexcept {
  const double mn = double(problem_.m) * problem_.n;
  return problem_.op == Op::q4gsw ? 2.0 * mn * problem_.k : 3.0 * mn;
}

}  // namespace vktune::kernels
