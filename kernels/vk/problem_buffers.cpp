// Uploading a problem's inputs once per layout.
#include "kernels/vk/problem_buffers.h"

#include <initializer_list>
#include <stdexcept>

#include "kernels/families/q4gsw_layout.h"
#include "kernels/float16.h"
#include "kernels/vk/command_buffer.h"
#include "kernels/vk/device.h"

namespace vktune::kernels {
namespace {

void upload(vk::Buffer& buffer, const std::vector<uint8_t>& bytes) {
  if (!bytes.empty()) buffer.upload(std::as_bytes(std::span<const uint8_t>(bytes)));
}

// Floats go up in the problem's dtype.
void upload(vk::Buffer& buffer, const std::vector<float>& values, DType dtype) {
  if (!values.empty()) buffer.upload(std::span<const std::byte>(encode(values, dtype)));
}

// Fills copies 1.. of each tensor in `copies` from its copy 0, in one submission on the device:
// the host sends one copy of each and the device copies the rest at its own bandwidth (a cold
// run's 4096 x 4096 weight, 28 copies, sends 8.4 MB from the host instead of 235 MB a layout).
void copy_on_device(vk::Device& device, std::initializer_list<std::vector<vk::Buffer>*> copies) {
  if (copies.begin()[0]->size() < 2) return;  // every tensor has as many copies
  device.run([&](vk::CommandBuffer& cb) {
    for (const std::vector<vk::Buffer>* tensor : copies) {
      for (size_t c = 1; c < tensor->size(); ++c) {
        cb.copy(tensor->front(), (*tensor)[c], tensor->front().size());
      }
    }
  });
}

void check_sizes(const Problem& p, const ProblemData& data) {
  const uint64_t x = binding_sizes(p, Layout::raw).x / dtype_bytes(p.dtype);
  const bool ok = data.x.size() == x && op_descriptor(p.op).data_matches(p, data);
  if (!ok) throw std::invalid_argument("ProblemData does not match " + describe(p));
}

}  // namespace

std::vector<const vk::Buffer*> ProblemBuffers::bound(const OpDescriptor& op, uint32_t c,
                                                     const vk::Buffer* out,
                                                     const vk::Buffer* workspace) const {
  std::vector<const vk::Buffer*> buffers;
  for (const BindingDesc& b : op.bindings) {
    switch (b.role) {
      case BufferRole::x:
        buffers.push_back(&x());
        break;
      case BufferRole::weight:
        buffers.push_back(&weight(c));
        break;
      case BufferRole::scales:
        buffers.push_back(&scales(c));
        break;
      case BufferRole::vector:
        buffers.push_back(&vector());
        break;
      case BufferRole::out:
        buffers.push_back(out);
        break;
      case BufferRole::workspace:
        buffers.push_back(workspace);
        break;
      case BufferRole::keys:
        buffers.push_back(&keys(c));
        break;
      case BufferRole::values:
        buffers.push_back(&values(c));
        break;
    }
  }
  return buffers;
}

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
      buffers->values_.push_back(padded_buffer(device, sizes.values));
    }
    upload(buffers->keys_.front(), data.keys, p.dtype);
    upload(buffers->values_.front(), data.values, p.dtype);
    copy_on_device(device, {&buffers->keys_, &buffers->values_});
  }
  if (!data.weight.empty()) {
    for (uint32_t c = 0; c < weight_copies; ++c) {
      buffers->weights_.push_back(padded_buffer(device, sizes.weight));
      // packed_s16 carries the scales in the weight: the binding gets a placeholder.
      buffers->scales_.push_back(padded_buffer(device, sizes.scales));
    }
    upload(buffers->weights_.front(),
           prepack_weight(layout, data.weight, data.scales, p.n, p.k, p.group_size));
    if (layout_holds_scales(layout)) {
      copy_on_device(device, {&buffers->weights_});
    } else {
      upload(buffers->scales_.front(), data.scales, p.dtype);
      copy_on_device(device, {&buffers->weights_, &buffers->scales_});
    }
  }
  return buffers;
}

}  // namespace vktune::kernels
