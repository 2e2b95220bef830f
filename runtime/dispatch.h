// The dispatch contract: what an engine needs to run a Selection on one problem with its own
// Vulkan code, as plain data — the push-constant bytes, the bindings with their sizes (the
// split-K workspace included), the workgroup counts (clamped to the device's limits; the
// shaders grid-stride past them), the device features to enable — and the CPU prepack into the layout a Selection names. All
// of it is read from the kernel catalogue, the same description the tuner dispatched.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/selection.h"

namespace vktune::runtime {

struct BindingPlan {
  uint32_t binding = 0;
  // q4gsw: "x", "weight", "scales", "bias", "out", "workspace"; rms_norm: "x", "w", "out";
  // sdpa: "q", "k_cache", "v_cache", "out", "workspace".
  std::string_view name;
  // Bytes of the tensor (what to upload). 0: the variant does not read it (q4gsw without bias).
  uint64_t bytes = 0;
  // Bytes to allocate and bind: `bytes` rounded up to 16, at least 16 (the shaders load whole
  // 16-byte words at a tensor's end).
  uint64_t alloc_bytes = 16;
  bool written = false;
  // Zero it once before the first dispatch (the split-K workspace's counters); the kernel
  // leaves it zero again when each dispatch ends, so one buffer serves every dispatch of this
  // plan. Not another plan's: a kernel of other tiles leaves its partials where this one's
  // counters are, and this one's output then goes unwritten.
  bool zero_once = false;
};

struct DispatchPlan {
  Status status = Status::invalid_query;
  std::string error;  // empty when status == ok
  std::vector<std::byte> push_constants;
  std::vector<BindingPlan> bindings;  // in binding order, one per storage buffer
  std::array<uint32_t, 3> groups{};
  uint32_t workgroup_size = 0;
  // Shared memory the shader declares: the device's maxComputeSharedMemorySize must hold it, as
  // its maxComputeWorkGroupInvocations and maxComputeWorkGroupSize[0] must hold workgroup_size.
  uint32_t shared_memory_bytes = 0;
  std::string layout;  // the weight layout to prepack to ("raw", "packed", "packed_s16", "none")
  // The device features the variant needs, by their Vulkan names, in the catalogue's order
  // (kernels/requirements.h): "storageBuffer16BitAccess" (VkPhysicalDeviceVulkan11Features),
  // "shaderFloat16" (VkPhysicalDeviceVulkan12Features), "VK_SUBGROUP_FEATURE_ARITHMETIC_BIT"
  // (VkPhysicalDeviceSubgroupProperties::supportedOperations, compute stage),
  // "VK_NV_cooperative_matrix" (the extension and its cooperativeMatrix feature, with a
  // 16x16x16 f16*f16+f32 shape), "shaderIntegerDotProduct" (VkPhysicalDeviceVulkan13Features,
  // a Vulkan 1.3 device), "VK_NV_cooperative_matrix2" (on Vulkan 1.3: that extension with the
  // features VKTUNE_FEATURE_COOPERATIVE_MATRIX2_NV lists, VK_KHR_cooperative_matrix and
  // bufferDeviceAddress), "VK_KHR_cooperative_matrix" (the extension and its cooperativeMatrix
  // feature, with the 16x16x16 f16*f16+f32 subgroup shape). Empty: a Vulkan 1.2 device with
  // nothing enabled runs it. The
  // engine checks the device has each and enables it on its VkDevice.
  std::vector<std::string> required_features;
  uint32_t required_feature_bits = 0;  // the same as VKTUNE_FEATURE_* bits
  uint32_t required_subgroup_size = 0;  // the subgroup size the shader assumes; 0: any
  // The device's subgroup size must divide this (whole subgroups per output); 0: any.
  uint32_t subgroup_size_divides = 0;
  // How far each output may stray from the exact result, relative to its bound sum_k |x w|
  // (sdpa: sum |p v|): the tolerance the tuner's correctness gate held the variant to. The
  // arithmetic decides it: ~1e-5 in fp32, more where the variant rounds x to int8 per block
  // (the integer-dot GEMVs) or computes or stores in fp16. An engine that checks outputs uses it.
  double tolerance = 0;

  bool ok() const noexcept { return status == Status::ok; }
};

// The plan for `selection` (an ok answer of select or select_builtin) on `problem`, for a
// device with `max_workgroup_count` (VkPhysicalDeviceLimits::maxComputeWorkGroupCount).
// Refuses, with status invalid_query and the reason, a selection that is not ok, names a
// family or knobs this catalogue does not know, or whose constraints the problem breaks (sdpa:
// a head group `qpg` that does not divide heads / kv_heads included).
DispatchPlan plan_dispatch(const Selection& selection, const ProblemQuery& problem,
                           const std::array<uint32_t, 3>& max_workgroup_count) noexcept;

// Bytes of the weights of an N x K problem with `group_size` in `layout` ("raw", "packed",
// "packed_s16"; packed_s16 holds the scales too). 0 for "none", an unknown layout, or
// packed_s16 with a group size that is not a multiple of 32 (0 included).
uint64_t prepacked_bytes(std::string_view layout, uint32_t n, uint32_t k,
                         uint32_t group_size = 0) noexcept;

// Raw int4 weights [N, K/2] (byte j of row n: q(n, 2j+1) << 4 | q(n, 2j)) in `layout`, into
// `out` (resized to prepacked_bytes). `scales` [K/gs, N] (an f16 problem's widened to float)
// are read by packed_s16 only, which stores them rounded to fp16 and leaves the scales binding
// unused. Returns an empty string, or why it cannot (unknown layout, K odd, raw or scales of
// the wrong size, a group size packed_s16 cannot hold).
std::string prepack(std::string_view layout, std::span<const uint8_t> raw,
                    std::span<const float> scales, uint32_t n, uint32_t k, uint32_t group_size,
                    std::vector<uint8_t>& out) noexcept;
// The same for the layouts without scales (raw, packed); packed_s16 is refused with the reason.
std::string prepack(std::string_view layout, std::span<const uint8_t> raw, uint32_t n,
                    uint32_t k, std::vector<uint8_t>& out) noexcept;

}  // namespace vktune::runtime
