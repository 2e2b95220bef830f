// The device's copy bandwidth, measured once per run so reports can say "% of peak".
#pragma once

#include <cstdint>

#include "tuner/dispatch_timer.h"
#include "tuner/statistics.h"

namespace vktune {
class ShaderCompiler;
}
namespace vktune::vk {
class Device;
}

namespace vktune::tuner {

class ClockProbe;

struct Bandwidth {
  double gbps = 0;       // (bytes read + bytes written) / median time, 1e9 bytes per second
  uint64_t bytes = 0;    // size of one buffer
  double median_ns = 0;  // of one copy
};

// Times copies between two device-local buffers of `bytes` (0: 512 MiB on a discrete GPU,
// well past any last-level cache, and 64 MiB elsewhere; never more than one storage binding
// may address) with GPU timestamps, each sample back-to-back copies in alternating
// directions, both by a streaming shader and by vkCmdCopyBuffer; the faster median counts
// (shaders win on GPUs whose copy command uses a slower copy engine, memcpy on a CPU device).
// With `probe` each timing starts at the peak clock (tuner/clock_probe.h): a copy at a lowered
// SM clock does not keep DRAM busy (2057-2104 GB/s on the H100 against 2955).
Bandwidth measure_copy_bandwidth(vk::Device& device, ShaderCompiler& compiler,
                                 ClockProbe* probe = nullptr, uint64_t bytes = 0);

// One streaming-shader copy of `bytes` (a multiple of 16, at most one storage binding), timed by
// `timer` as a kernel is: back-to-back dispatches in alternating directions, a barrier between
// each. GPU nanoseconds per copy, whose bytes moved are 2 * `bytes`.
SampleStats time_shader_copy(vk::Device& device, ShaderCompiler& compiler, DispatchTimer& timer,
                             uint64_t bytes, const TimingOptions& options);

}  // namespace vktune::tuner
