// Copy-bandwidth measurement with a streaming shader and timestamps.
#include "tuner/bandwidth.h"

#include <algorithm>
#include <vector>

#include "kernels/vk/shader_compiler.h"
#include "kernels/vk/buffer.h"
#include "kernels/vk/command_buffer.h"
#include "kernels/vk/device.h"
#include "kernels/vk/pipeline.h"
#include "tuner/dispatch_timer.h"

namespace vktune::tuner {

SampleStats time_shader_copy(vk::Device& device, ShaderCompiler& compiler, DispatchTimer& timer,
                             uint64_t bytes, const TimingOptions& options) {
  constexpr uint32_t kWorkgroup = 256;
  const auto spirv = compiler.compile("bandwidth_copy.comp", {{"WG", "256"}}, "bandwidth_copy");
  const vk::ComputePipeline pipeline =
      vk::ComputePipeline::create(device, {"bandwidth_copy", *spirv, 2, sizeof(uint32_t), {}});
  vk::Buffer a = vk::Buffer::create(device, bytes), b = vk::Buffer::create(device, bytes);
  const vk::Buffer* forward[] = {&a, &b};
  const vk::Buffer* backward[] = {&b, &a};
  const vk::DescriptorSet sets[] = {pipeline.bind(forward), pipeline.bind(backward)};
  const uint32_t count = static_cast<uint32_t>(bytes / 16);
  // Four elements per invocation: enough workgroups to fill any GPU, few enough to stream.
  const uint32_t groups = static_cast<uint32_t>(
      std::min<uint64_t>((count + 4 * kWorkgroup - 1) / (4 * kWorkgroup),
                         device.info().limits.max_workgroup_count[0]));
  // Alternate directions so each copy reads what the last one wrote, never a cached copy.
  return timer.measure(
      [&](vk::CommandBuffer& cb, uint32_t i) {
        cb.dispatch(pipeline, sets[i % 2], vk::push_bytes(count), {groups, 1, 1});
      },
      options);
}

Bandwidth measure_copy_bandwidth(vk::Device& device, ShaderCompiler& compiler, ClockProbe* probe,
                                 uint64_t bytes) {
  const vk::DeviceInfo& info = device.info();
  if (bytes == 0) bytes = info.type == vk::DeviceType::discrete ? (512ull << 20) : (64ull << 20);
  bytes = std::min<uint64_t>(bytes, info.limits.max_storage_buffer_range) / 16 * 16;
  TimingOptions timing;
  timing.min_sample_ns = 2e6;
  timing.min_samples = 7;
  timing.max_samples = 15;
  DispatchTimer timer(device, probe);
  const SampleStats shader = time_shader_copy(device, compiler, timer, bytes, timing);
  // The transfer path too: on a CPU device it is a memcpy that outruns any shader.
  vk::Buffer a = vk::Buffer::create(device, bytes), b = vk::Buffer::create(device, bytes);
  const SampleStats transfer = timer.measure(
      [&](vk::CommandBuffer& cb, uint32_t i) {
        if (i % 2 == 0) cb.copy(a, b, bytes); else cb.copy(b, a, bytes);
      },
      timing);
  const double median = std::min(shader.median, transfer.median);
  return {2.0 * static_cast<double>(bytes) / median, bytes, median};
}

}  // namespace vktune::tuner
