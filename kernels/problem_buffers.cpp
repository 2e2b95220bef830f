// Uploading a problem's inputs once per layout.
#include "kernels/problem_buffers.h"

#include <stdexcept>

#include "kernels/families/q4gsw_layout.h"
#include "kernels/float16.h"

namespace vktune::kernels {
namespace {

void upload(vk::Buffer& buffer, const std::vector<uint8_t>& bytes) {
  if (!bytes.empty()) buffer.upload(std::as_bytes(std::span<const uint8_t>(bytes)));
}

// Floats go up in the problem's dtype.
void upload(vk::Buffer& buffer, const std::vector<float>& values, DType dtype) {
  if (!values.empty()) buffer.upload(std::span<const std::byte>(encode(values, dtype)));
}

void check_sizes(const Problem& p, const ProblemData& data, bool with_x) {
  const bool x_ok = !with_x || data.x.size() == uint64_t{p.m} * (p.op == Op::q4gsw ? p.k : p.n);
  const bool ok =
      x_ok && (p.op == Op::q4gsw
                   ? data.weight.size() == uint64_t{p.n} * (p.k / 2) &&
                         data.scales.size() == uint64_t{p.k / p.group_size} * p.n &&
                         data.bias.size() == (p.has_bias ? p.n : 0u)
                   : data.norm_weight.size() == p.n);
  if (!ok) throw std::invalid_argument("ProblemData does not match " + describe(p));
}

}  // namespace

vk::Buffer padded_buffer(vk::Device& device, uint64_t bytes) {
  return vk::Buffer::create(device, binding_alloc_bytes(bytes));
}

std::shared_ptr<const ProblemBuffers> ProblemBuffers::create(vk::Device& device,
                                                             const Problem& p,
                                                             const ProblemData& data,
                                                             Layout layout,
                                                             uint32_t weight_copies) {
  return make(device, p, data, layout, weight_copies, true);
}

std::shared_ptr<const ProblemBuffers> ProblemBuffers::create_weights_only(
    vk::Device& device, const Problem& p, const ProblemData& data, Layout layout,
    uint32_t weight_copies) {
  return make(device, p, data, layout, weight_copies, false);
}

const vk::Buffer& ProblemBuffers::x() const {
  if (!x_) {
    throw std::logic_error(describe(problem_) +
                           ": these buffers hold weights only; bind x through "
                           "KernelInstance's ExternalBuffers");
  }
  return *x_;
}

std::shared_ptr<const ProblemBuffers> ProblemBuffers::make(vk::Device& device, const Problem& p,
                                                           const ProblemData& data, Layout layout,
                                                           uint32_t weight_copies, bool with_x) {
  require_valid(p);
  check_sizes(p, data, with_x);
  if (weight_copies == 0) throw std::invalid_argument("weight_copies must be at least 1");
  const bool q4 = p.op == Op::q4gsw;
  const BindingSizes sizes = binding_sizes(p, layout);
  std::shared_ptr<ProblemBuffers> buffers(
      new ProblemBuffers(padded_buffer(device, sizes.bias)));
  buffers->problem_ = p;
  buffers->layout_ = layout;
  if (with_x) {
    buffers->x_.emplace(padded_buffer(device, sizes.x));
    upload(*buffers->x_, data.x, p.dtype);
  }
  upload(buffers->vector_, q4 ? data.bias : data.norm_weight, p.dtype);
  if (q4) {
    const std::vector<uint8_t> packed =
        layout == Layout::packed ? prepack(data.weight, p.n, p.k) : std::vector<uint8_t>{};
    const std::vector<uint8_t>& weight = layout == Layout::packed ? packed : data.weight;
    for (uint32_t c = 0; c < weight_copies; ++c) {
      buffers->weights_.push_back(padded_buffer(device, sizes.weight));
      upload(buffers->weights_.back(), weight);
      buffers->scales_.push_back(padded_buffer(device, sizes.scales));
      upload(buffers->scales_.back(), data.scales, p.dtype);
    }
  }
  return buffers;
}

}  // namespace vktune::kernels
