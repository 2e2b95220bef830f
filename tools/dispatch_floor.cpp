// dispatch_floor: what a dispatch costs before its kernel does anything, and copies and reads of
// a kernel's size, all timed as the tuner times a kernel (back-to-back dispatches, a barrier
// between each), beside the tuner's copy bandwidth. A kernel's % of copy bandwidth reads against
// these.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "kernels/vk/command_buffer.h"
#include "kernels/vk/device.h"
#include "kernels/vk/device_select.h"
#include "kernels/vk/instance.h"
#include "kernels/vk/pipeline.h"
#include "kernels/vk/shader_compiler.h"
#include "tuner/bandwidth.h"
#include "tuner/clock_probe.h"
#include "tuner/dispatch_timer.h"

namespace vktune {
namespace {

// `groups` workgroups of `size` invocations of a shader that does nothing.
tuner::SampleStats time_empty(vk::Device& device, ShaderCompiler& compiler,
                              tuner::DispatchTimer& timer, uint32_t groups, uint32_t size) {
  const auto spirv = compiler.compile_text(
      "empty.comp", "#version 450\nlayout(local_size_x = WG) in;\nvoid main() {}\n",
      {{"WG", std::to_string(size)}}, "empty");
  const vk::ComputePipeline pipeline =
      vk::ComputePipeline::create(device, {"empty", *spirv, 0, 0, {}});
  const vk::DescriptorSet set = pipeline.bind({});
  return timer.measure(
      [&](vk::CommandBuffer& cb, uint32_t) { cb.dispatch(pipeline, set, {}, {groups, 1, 1}); },
      tuner::TimingOptions{});
}

// Reads the buffer and does nothing else: the grid covers it once, each invocation with its
// LOADS 16-byte loads all in flight before any is used. The result is stored only where it
// equals a value the zeroed buffer cannot give, which the compiler cannot know, so no load is
// dropped.
constexpr const char* kReadShader = R"(#version 450
layout(local_size_x = WG) in;
layout(push_constant) uniform Push { uint count; } pc;  // uvec4 elements
layout(std430, binding = 0) readonly buffer Src { uvec4 src[]; };
layout(std430, binding = 1) writeonly buffer Sink { uvec4 sink[]; };
void main() {
  const uint threads = gl_NumWorkGroups.x * WG;
  uvec4 loaded[LOADS];
  for (uint u = 0; u < LOADS; ++u) {
    const uint i = gl_GlobalInvocationID.x + u * threads;
    loaded[u] = i < pc.count ? src[i] : uvec4(0u);
  }
  uvec4 x = uvec4(0u);
  for (uint u = 0; u < LOADS; ++u) x ^= loaded[u];
  if (x == uvec4(0x9e3779b9u)) sink[0] = x;
}
)";

// kReadShader over `bytes`, the same buffer each dispatch: what the last-level cache can keep
// stays there, as a kernel timed hot finds its inputs.
tuner::SampleStats time_read(vk::Device& device, ShaderCompiler& compiler,
                             tuner::DispatchTimer& timer, uint64_t bytes) {
  constexpr uint32_t kWorkgroup = 256, kLoads = 8;
  const auto spirv = compiler.compile_text(
      "read.comp", kReadShader,
      {{"WG", std::to_string(kWorkgroup)}, {"LOADS", std::to_string(kLoads)}}, "read");
  const vk::ComputePipeline pipeline =
      vk::ComputePipeline::create(device, {"read", *spirv, 2, sizeof(uint32_t), {}});
  vk::Buffer src = vk::Buffer::create(device, bytes), sink = vk::Buffer::create(device, 16);
  device.run([&](vk::CommandBuffer& cb) { cb.fill(src, 0); });
  const vk::Buffer* bound[] = {&src, &sink};
  const vk::DescriptorSet set = pipeline.bind(bound);
  const uint32_t count = static_cast<uint32_t>(bytes / 16);
  const uint32_t groups = (count + kLoads * kWorkgroup - 1) / (kLoads * kWorkgroup);
  return timer.measure(
      [&](vk::CommandBuffer& cb, uint32_t) {
        cb.dispatch(pipeline, set, vk::push_bytes(count), {groups, 1, 1});
      },
      tuner::TimingOptions{});
}

void print(const std::string& what, const tuner::SampleStats& s, double bytes_moved) {
  std::printf("%-34s %10.2f us  (p10 %.2f, p90 %.2f)", what.c_str(), s.median / 1e3, s.p10 / 1e3,
              s.p90 / 1e3);
  if (bytes_moved > 0) std::printf("  %7.0f GB/s", bytes_moved / s.median);
  std::printf("\n");
  std::fflush(stdout);
}

// "GROUPSxWG", e.g. "128x256".
std::pair<uint32_t, uint32_t> parse_empty(const std::string& text) {
  unsigned groups = 0, size = 0;
  char end = 0;
  if (std::sscanf(text.c_str(), "%ux%u%c", &groups, &size, &end) != 2 || groups == 0 || size == 0) {
    throw std::invalid_argument("--empty " + text + " is not GROUPSxWG, e.g. 128x256");
  }
  return {groups, size};
}

void run(const std::string& device_flag, const std::vector<uint64_t>& copies,
         const std::vector<uint64_t>& reads, const std::vector<std::string>& empty_texts) {
  std::vector<std::pair<uint32_t, uint32_t>> empties;
  for (const std::string& text : empty_texts) empties.push_back(parse_empty(text));
  const vk::Instance instance = vk::Instance::create();
  instance.validation_log().echo_to(stderr);  // with VKTUNE_VALIDATION=1
  const size_t index = vk::select_device(instance.devices(), vk::device_request(device_flag));
  vk::Device device = vk::Device::create(instance, index);
  ShaderCompiler compiler;
  tuner::ClockProbe probe(device, compiler);
  tuner::DispatchTimer timer(device, &probe);
  const uint64_t range = device.info().limits.max_storage_buffer_range;
  for (const auto& [flag, sizes] : {std::pair{"--copy ", &copies}, std::pair{"--read ", &reads}}) {
    for (const uint64_t bytes : *sizes) {
      if (bytes == 0 || bytes % 16 != 0 || bytes > range) {
        throw std::invalid_argument(flag + std::to_string(bytes) +
                                    " must be a non-zero multiple of 16 up to the device's " +
                                    std::to_string(range) + "-byte storage binding");
      }
    }
  }
  const tuner::Bandwidth bw = tuner::measure_copy_bandwidth(device, compiler, &probe);
  std::printf("%-34s %10.2f us  %7.0f GB/s (the tuner's copy bandwidth)\n",
              ("copy " + std::to_string(bw.bytes) + " B").c_str(), bw.median_ns / 1e3, bw.gbps);
  for (const uint64_t bytes : copies) {
    const auto s = tuner::time_shader_copy(device, compiler, timer, bytes, tuner::TimingOptions{});
    print("copy " + std::to_string(bytes) + " B as a kernel", s, 2.0 * static_cast<double>(bytes));
  }
  for (const uint64_t bytes : reads) {
    print("read " + std::to_string(bytes) + " B as a kernel",
          time_read(device, compiler, timer, bytes), static_cast<double>(bytes));
  }
  for (const auto& [groups, size] : empties) {
    print("empty " + std::to_string(groups) + " x " + std::to_string(size),
          time_empty(device, compiler, timer, groups, size), 0);
  }
}

}  // namespace
}  // namespace vktune

int main(int argc, char** argv) {
  CLI::App app{
      "dispatch_floor: an empty dispatch, copies and reads timed as the tuner times a kernel"};
  std::string device;
  std::vector<uint64_t> copies, reads;
  std::vector<std::string> empties;
  app.add_option("--device", device, "device index or name (as vktune devices lists them)");
  app.add_option("--copy", copies, "bytes copied (each way), repeatable");
  app.add_option("--read", reads,
                 "bytes a kernel only reads (the same buffer each time, as a hot kernel's input), "
                 "repeatable");
  app.add_option("--empty", empties,
                 "GROUPSxWG: an empty dispatch of GROUPS workgroups of WG, repeatable");
  CLI11_PARSE(app, argc, argv);
  try {
    vktune::run(device, copies, reads, empties);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "dispatch_floor: %s\n", e.what());
    return 1;
  }
  return 0;
}
