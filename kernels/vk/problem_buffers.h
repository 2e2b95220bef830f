// The inputs of one problem uploaded once in one weight layout, shared by every variant that
// reads that layout: a tuning run uploads weights per (problem, layout), not per variant.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "kernels/family.h"
#include "kernels/families/reference.h"
#include "kernels/vk/buffer.h"

namespace vktune::vk {
class Device;
}

namespace vktune::kernels {

class ProblemBuffers {
 public:
  // Uploads `data` (raw layout; prepacked here into `layout`) with `weight_copies`
  // (>= 1) identical copies of the weight and scales (sdpa: of the K and V cache), so a timing
  // loop can rotate among them and read the weights cold. Throws std::invalid_argument when `data` does not match
  // `problem`, vk::Error on Vulkan failures. `device` must outlive the buffers.
  static std::shared_ptr<const ProblemBuffers> create(vk::Device& device, const Problem& problem,
                                                      const ProblemData& data, Layout layout,
                                                      uint32_t weight_copies = 1);

  const Problem& problem() const noexcept { return problem_; }
  Layout layout() const noexcept { return layout_; }
  // Copies of the weight and scales, or of the KV cache; 1 for rms_norm.
  uint32_t weight_copies() const noexcept { return copies_; }

  const vk::Buffer& x() const noexcept { return x_; }
  // q4gsw: the bias (a placeholder when the problem has none); rms_norm: the norm weight.
  const vk::Buffer& vector() const noexcept { return vector_; }
  // q4gsw only: weight copy `c` and its scales.
  const vk::Buffer& weight(uint32_t c) const { return weights_.at(c); }
  const vk::Buffer& scales(uint32_t c) const { return scales_.at(c); }
  // sdpa only: copy `c` of the K and the V cache.
  const vk::Buffer& keys(uint32_t c) const { return keys_.at(c); }
  const vk::Buffer& values(uint32_t c) const { return values_.at(c); }

  // The buffers of `op`'s bindings in binding order, with copy `c` of the weights or cache, and
  // `out` and `workspace` (null where the op has none) for the roles these inputs do not hold.
  std::vector<const vk::Buffer*> bound(const OpDescriptor& op, uint32_t c, const vk::Buffer* out,
                                       const vk::Buffer* workspace) const;

 private:
  ProblemBuffers(vk::Buffer x, vk::Buffer vector) : x_(std::move(x)), vector_(std::move(vector)) {}

  Problem problem_;
  Layout layout_ = Layout::none;
  vk::Buffer x_;
  vk::Buffer vector_;
  uint32_t copies_ = 1;
  std::vector<vk::Buffer> weights_, scales_, keys_, values_;
};

// A buffer of at least `bytes`, rounded up to 16 so shaders reading whole words or 16-byte
// blocks at the end of a tensor stay inside it.
vk::Buffer padded_buffer(vk::Device& device, uint64_t bytes);

}  // namespace vktune::kernels
