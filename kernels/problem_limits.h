// Whether a problem fits a device at all, whatever the variant: checked before a tuning run
// writes anything, so a shape past the device's limits is a clear error, not an allocation
// failure halfway through. Messages give sizes in readable units.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "kernels/problem.h"
#include "kernels/device_info.h"

namespace vktune::kernels {

// Empty when `problem` is well formed (validate()) and each of its buffers, in the raw weight
// layout, fits one storage-buffer binding (maxStorageBufferRange) and one allocation
// (maxMemoryAllocationSize) of `device`; else the reason, naming the buffer, its size, the
// limit and then `fix`, the caller's advice. A limit of 0 (unknown) is not checked. Per-variant
// limits (workgroup size, shared memory, a packed layout's padding) stay with Family::legality.
inline constexpr std::string_view kTuneFitFix = "tune a smaller shape or split the tensor";
std::string fit_error(const Problem& problem, const vk::DeviceInfo& device,
                      std::string_view fix = kTuneFitFix);

// Throws InvalidProblem with the first problem's fit_error, if any.
void require_fit(std::span<const Problem> problems, const vk::DeviceInfo& device);

// `bytes` in the largest binary unit that keeps it >= 1, with up to one decimal:
// "512 bytes", "1.5 KiB", "128 MiB", "4 GiB", "16 EiB".
std::string format_bytes(uint64_t bytes);

}  // namespace vktune::kernels
