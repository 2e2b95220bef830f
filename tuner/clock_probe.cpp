// ClockProbe: the SM clock read through a fixed dispatch's duration.
#include "tuner/clock_probe.h"

#include <algorithm>

#include "kernels/vk/shader_compiler.h"
#include "kernels/vk/command_buffer.h"
#include "kernels/vk/device.h"

namespace vktune::tuner {
namespace {

constexpr uint32_t kCount = 4;  // probe dispatches per reading, calibration and check alike
constexpr uint32_t kLoad = 256;  // per calibration batch that only keeps the GPU busy

vk::ComputePipeline make_pipeline(vk::Device& device, ShaderCompiler& compiler) {
  const auto spirv = compiler.compile("clock_probe.comp", {}, "clock_probe");
  return vk::ComputePipeline::create(device, {"clock_probe", *spirv, 1, sizeof(float), {}});
}

}  // namespace

ClockProbe::ClockProbe(vk::Device& device, ShaderCompiler& compiler, double calibrate_ns)
    : device_(device),
      pipeline_(make_pipeline(device, compiler)),
      out_(vk::Buffer::create(device, 64 * sizeof(float))),
      pool_(vk::TimestampPool::create(device, 2)) {
  const vk::Buffer* buffers[] = {&out_};
  set_.emplace(pipeline_.bind(buffers));
  // A steady load raises the clock: batches of 256 dispatches (~8 ms at the peak) keep the GPU
  // busy, where readings alone, a few dispatches a submission, left it 80% idle and the H100
  // lowered its clock under them. The best is taken only from readings, the way slowdown()
  // measures, so launch overheads cancel (a batch of 256 averages them away).
  for (double spent = 0; spent < calibrate_ns;) {
    spent += load();
    spent += kCount * time_ns(kCount, true);
  }
}

void ClockProbe::record(vk::CommandBuffer& cb, const vk::TimestampPool& pool, uint32_t slot,
                        uint32_t count) const {
  const float one = 1.0f;
  cb.timestamp(pool, slot);
  for (uint32_t i = 0; i < count; ++i) {
    cb.dispatch(pipeline_, *set_, vk::push_bytes(one), {1, 1, 1});
    cb.barrier();
  }
  cb.timestamp(pool, slot + 1);
}

double ClockProbe::time_ns(uint32_t count, bool reading) {
  device_.run([&](vk::CommandBuffer& cb) {
    cb.reset_timestamps(pool_);
    record(cb, pool_, 0, count);
  });
  const auto ns = pool_.read_ns();
  const double t = std::max(1.0, static_cast<double>(ns[1] - ns[0]) / count);
  if (reading && (best_ns_ == 0 || t < best_ns_)) best_ns_ = t;
  return t;
}

double ClockProbe::load() { return kLoad * time_ns(kLoad, false); }

double ClockProbe::slowdown() { return time_ns(kCount, true) / best_ns_; }

double ClockProbe::bring_up(double max_ns) {
  double spent = 0;
  while (spent < max_ns && slowdown() > kAtPeak) spent += load();
  return spent;
}

void ClockProbe::record_reading(vk::CommandBuffer& cb, const vk::TimestampPool& pool,
                                uint32_t slot) const {
  record(cb, pool, slot, kCount);
}

double ClockProbe::slowdown_of(uint64_t begin_ns, uint64_t end_ns) const {
  return std::max(1.0, static_cast<double>(end_ns - begin_ns) / kCount) / best_ns_;
}

double ClockProbe::bracket_slowdown(std::span<const uint64_t> ns, uint32_t slot) const {
  return std::max(slowdown_of(ns[slot], ns[slot + 1]), slowdown_of(ns[slot + 2], ns[slot + 3]));
}

}  // namespace vktune::tuner
