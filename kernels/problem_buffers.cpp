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

bool op_data_ok(const Problem& p, const ProblemData& data) {
  switch (p.op) {
    case Op::q4gsw:
      return data.weight.size() == uint64_t{p.n} * (p.k / 2) &&
             data.scales.size() == uint64_t{p.k / p.group_size} * p.n &&
             data.bias.size() == (p.has_bias ? p.n : 0u);
    case Op::rms_norm: return data.norm_weight.size() == p.n;
    case Op::sdpa: {
      const uint64_t cache = binding_sizes(p, Layout::none).keys / dtype_bytes(p.dtype);
      return data.keys.size() == cache && data.values.size() == cache;
    }
  }
  return false;
}

void check_sizes(const Problem& p, const ProblemData& data) {
  const uint64_t x = binding_sizes(p, Layout::raw).x / dtype_bytes(p.dtype);
  const bool ok = data.x.size() == x && op_data_ok(p, data);
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
  require_valid(p);
  check_sizes(p, data);
  if (weight_copies == 0) throw std::invalid_argument("weight_copies must be at least 1");
  const bool q4 = p.op == Op::q4gsw;
  const BindingSizes sizes = binding_sizes(p, layout);
  std::shared_ptr<ProblemBuffers> buffers(
      new ProblemBuffers(padded_buffer(device, sizes.x), padded_buffer(device, sizes.bias)));
  buffers->problem_ = p;
  buffers->layout_ = layout;
  upload(buffers->x_, data.x, p.dtype);
  upload(buffers->vector_, q4 ? data.bias : data.norm_weight, p.dtype);
  buffers->copies_ = p.op == Op::rms_norm ? 1 : weight_copies;
  if (p.op == Op::sdpa) {
    for (uint32_t c = 0; c < weight_copies; ++c) {
      buffers->keys_.push_back(padded_buffer(device, sizes.keys));
      upload(buffers->keys_.back(), data.keys, p.dtype);
      buffers->values_.push_back(padded_buffer(device, sizes.values));
      upload(buffers->values_.back(), data.values, p.dtype);
    }
  }
  if (q4) {
    const std::vector<uint8_t> weight =
        prepack_weight(layout, data.weight, data.scales, p.n, p.k, p.group_size);
    for (uint32_t c = 0; c < weight_copies; ++c) {
      buffers->weights_.push_back(padded_buffer(device, sizes.weight));
      upload(buffers->weights_.back(), weight);
      // packed_s16 carries the scales in the weight: the binding gets a placeholder.
      buffers->scales_.push_back(padded_buffer(device, sizes.scales));
      if (!layout_holds_scales(layout)) upload(buffers->scales_.back(), data.scales, p.dtype);
    }
  }
  return buffers;
}

}  // namespace vktune::kernels
