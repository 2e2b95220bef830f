// The device's copy bandwidth, measured once per run so reports can say "% of peak".
#pragma once

#include <cstdint>

namespace vktune::vk {
class Device;
}

namespace vktune::tuner {

struct Bandwidth {
  double gbps = 0;       // (bytes read + bytes written) / median time, 1e9 bytes per second
  uint64_t bytes = 0;    // size of one buffer
  double median_ns = 0;  // of one copy
};

// Times device-local buffer-to-buffer copies of `bytes` (0: 512 MiB on a discrete GPU, well
// past any last-level cache, and 64 MiB elsewhere) with GPU timestamps; median of several
// samples of back-to-back copies.
Bandwidth measure_copy_bandwidth(vk::Device& device, uint64_t bytes = 0);

}  // namespace vktune::tuner
