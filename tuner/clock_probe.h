// Reads whether the GPU's SM clock is at its peak by timing a fixed ALU-bound dispatch
// (clock_probe.comp: one workgroup, a dependent FMA chain): its time is cycles / clock, so
// against its fastest time in this process it gives the clock as a fraction of the highest
// seen. A warm-up that stops when the kernel's own time looks flat can stop on one of the
// plateaus NVIDIA's governor climbs through (H100: 345 MHz to 1980 MHz in steps held for
// 100-400 ms under a light load); the probe tells a plateau from the top.
#pragma once

#include <cstdint>
#include <optional>
#include <span>

#include "kernels/vk/buffer.h"
#include "kernels/vk/pipeline.h"
#include "kernels/vk/timestamp_pool.h"

namespace vktune {
class ShaderCompiler;
}

namespace vktune::vk {
class CommandBuffer;
}

namespace vktune::tuner {

// A slowdown up to this reads as the peak clock: a reading's own noise is a few percent.
inline constexpr double kAtPeak = 1.05;

class ClockProbe {
 public:
  // Compiles the probe and runs it back to back for up to `calibrate_ns` of GPU time, so its
  // best time is taken at the peak clock the governor gives a steady load.
  ClockProbe(vk::Device& device, ShaderCompiler& compiler, double calibrate_ns = 1e9);

  // Times a few probe dispatches; returns their time over the best so far (>= 1; 1.0 at the
  // peak).
  double slowdown();
  // Runs a batch of probe dispatches that only keeps the GPU busy (a few milliseconds at the
  // peak clock); returns the GPU nanoseconds it took.
  double load();
  // Loads the GPU until a reading is at the peak (kAtPeak) or `max_ns` of GPU time is spent;
  // returns the time spent (0 when the clock was up already; >= max_ns: a capped clock).
  double bring_up(double max_ns);
  // A reading inside someone else's submission: records the probe dispatches of one reading
  // between timestamps `slot` and `slot + 1` of `pool`; slowdown_of() turns those two
  // timestamps into the slowdown. So a timed submission can tell the clock it ran at.
  void record_reading(vk::CommandBuffer& cb, const vk::TimestampPool& pool, uint32_t slot) const;
  double slowdown_of(uint64_t begin_ns, uint64_t end_ns) const;
  // A submission bracketed by two readings, at timestamps [slot, slot + kBracketSlots) of its
  // pool (record_reading at `slot` first thing, at `slot + 2` last): the larger slowdown of the
  // two, from the pool's timestamps `ns`.
  static constexpr uint32_t kBracketSlots = 4;
  double bracket_slowdown(std::span<const uint64_t> ns, uint32_t slot) const;
  // The fastest probe dispatch seen, in GPU nanoseconds.
  double best_ns() const noexcept { return best_ns_; }

 private:
  // `count` probe dispatches in one submission; GPU nanoseconds per dispatch. A `reading`
  // updates the best.
  double time_ns(uint32_t count, bool reading);
  void record(vk::CommandBuffer& cb, const vk::TimestampPool& pool, uint32_t slot,
              uint32_t count) const;

  vk::Device& device_;
  vk::ComputePipeline pipeline_;
  vk::Buffer out_;
  std::optional<vk::DescriptorSet> set_;
  vk::TimestampPool pool_;
  double best_ns_ = 0;
};

}  // namespace vktune::tuner
