// Uploading a problem's inputs once per layout.
#include "kernels/vk/problem_buffers.h"

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

void check_sizes(const Problem& p, const ProblemData& data) {
  const uint64_t x = binding_sizes(p, Layout::raw).x / dtype_bytes(p.dtype);
  const bool ok = data.x.size() == x && op_descriptor(p.op).data_matches(p, data);
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
  const BindingSizes sizes = binding_sizes(p, layout);
  std::shared_ptr<ProblemBuffers> buffers(
      new ProblemBuffers(padded_buffer(device, sizes.x), padded_buffer(device, sizes.bias)));
  buffers->problem_ = p;
  buffers->layout_ = layout;
  upload(buffers->x_, data.x, p.dtype);
  upload(buffers->vector_, data.vector(), p.dtype);
  buffers->copies_ = streams_weights(op_descriptor(p.op)) ? weight_copies : 1;
  // What each op has of the streamed tensors: q4gsw the weight and scales, sdpa the KV cache.
  if (!data.keys.empty()) {
    for (uint32_t c = 0; c < weight_copies; ++c) {
      buffers->keys_.push_back(padded_buffer(device, sizes.keys));
      upload(buffers->keys_.back(), data.keys, p.dtype);
      buffers->values_.push_back(padded_buffer(device, sizes.values));
      upload(buffers->values_.back(), data.values, p.dtype);
    }
  }
  if (!data.weight.empty()) {
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
