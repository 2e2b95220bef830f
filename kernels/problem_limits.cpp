// fit_error / format_bytes.
#include "kernels/problem_limits.h"

#include <cstdio>
#include <utility>

#include "kernels/family.h"

namespace vktune::kernels {

std::string format_bytes(uint64_t bytes) {
  static constexpr const char* kUnits[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  if (bytes < 1024) return std::to_string(bytes) + " bytes";
  double value = static_cast<double>(bytes);
  size_t unit = 0;
  while (value >= 1024 && unit + 1 < std::size(kUnits)) {
    value /= 1024;
    ++unit;
  }
  char text[32];
  // One decimal, dropped when it is zero: "4 GiB", not "4.0 GiB".
  std::snprintf(text, sizeof text, "%.1f", value);
  std::string number = text;
  if (number.size() > 2 && number.compare(number.size() - 2, 2, ".0") == 0) number.resize(number.size() - 2);
  return number + " " + kUnits[unit];
}

std::string fit_error(const Problem& problem, const vk::DeviceInfo& device, std::string_view fix) {
  if (std::string reason = validate(problem); !reason.empty()) return reason;
  const BindingSizes sizes = binding_sizes(problem, Layout::none);  // none: q4gsw's raw weight
  const vk::DeviceLimits& limits = device.limits;
  const std::pair<const char*, uint64_t> device_limits[] = {
      {"maxStorageBufferRange, what one storage-buffer binding can address",
       limits.max_storage_buffer_range},
      {"maxMemoryAllocationSize, the largest single allocation", limits.max_memory_allocation_size}};
  for (const BindingDesc& binding : op_descriptor(problem.op).bindings) {
    const std::string name(binding.name);
    const uint64_t bytes = sizes.of(binding.role);  // the workspace is the variant's: not here
    for (const auto& [limit_name, limit] : device_limits) {
      if (limit != 0 && bytes > limit) {
        return describe(problem) + ": its " + name + " buffer is " + format_bytes(bytes) + ", more than " +
               device.name + " allows (" + format_bytes(limit) + ", " + limit_name + "); " +
               std::string(fix);
      }
    }
  }
  return {};
}

void require_fit(std::span<const Problem> problems, const vk::DeviceInfo& device) {
  for (const Problem& problem : problems) {
    if (std::string reason = fit_error(problem, device); !reason.empty()) {
      throw InvalidProblem(reason);
    }
  }
}

}  // namespace vktune::kernels
