// The runtime's vocabulary: what an engine asks (DeviceQuery, ProblemQuery) and what it gets
// back (Selection), with the provenance of every answer. Plain data, no Vulkan types.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "kernels/constraints.h"
#include "kernels/device_type.h"
#include "kernels/shader_spec.h"

namespace vktune::runtime {

// VkPhysicalDeviceType, spelled out so runtime/ needs no Vulkan headers.
using DeviceType = vk::DeviceType;

// The device an engine runs on, as Vulkan reports it. name is informational (it breaks ties
// between otherwise equal candidates); it is not part of the fingerprint.
struct DeviceQuery {
  uint32_t vendor_id = 0;
  uint32_t device_id = 0;
  uint32_t driver_id = 0;       // VkDriverId
  uint32_t driver_version = 0;  // raw driverVersion
  DeviceType device_type = DeviceType::other;
  std::array<uint8_t, 16> pipeline_cache_uuid{};
  std::string_view name;
};

// One problem (docs/variants.md "Problems"). For rms_norm: K == N and group_size == 0. For
// sdpa: N is the context length L, K the head dim, and heads / kv_heads are set; tuned problems
// are L buckets, an untuned L gets the nearest (log-distance), so an engine re-asks when L
// crosses into another bucket (docs/attention.md).
struct ProblemQuery {
  std::string_view op;  // an op's name: "q4gsw", "sdpa", ... (kernels/op.h's catalogue)
  std::string_view dtype = "f32";
  uint32_t m = 0;
  uint32_t n = 0;
  uint32_t k = 0;
  uint32_t group_size = 0;
  uint32_t heads = 0, kv_heads = 0;  // the ops with heads only (OpDescriptor::has_heads)
};

// A variant's legality as data: the catalogue's one encoding (kernels/constraints.h).
using Constraints = kernels::Constraints;

enum class Status : int {
  ok = 0,
  invalid_query = 1,  // zero dimension, unknown op, K odd, K % group_size != 0, ...
  no_match = 2,       // valid query, but nothing tuned and no built-in rule fits the shape
};

enum class DeviceMatch : int {
  exact = 0,             // same vendor, device, driver id, driver version and cache UUID
  other_driver = 1,      // same vendor and device, another driver or UUID: flag it
  same_vendor_type = 2,  // another device of the same vendor and device type
  builtin = 3,           // no tuned device used: built-in routing
};

enum class ShapeMatch : int {
  exact = 0,    // this very problem was tuned
  nearest = 1,  // the closest tuned problem (log-distance) whose winner is legal here
  builtin = 2,  // built-in routing
  ranked = 3,   // the best-scoring variant measured on the nearest tuned problems (rank.h)
};

// The answer of Snapshot::select. Every string_view points at NUL-terminated storage owned by
// the snapshot (or static storage for built-ins and error messages): valid as long as the
// snapshot lives, and safe to pass on as const char*.
struct Selection {
  Status status = Status::no_match;
  std::string_view error;  // empty when status == ok

  std::string_view family;
  std::string_view variant_key;
  std::string_view knobs_json;        // knobs in the family's declared order
  std::string_view constraints_json;
  std::string_view layout;            // weight layout the engine must prepack to
  uint32_t workgroup_size = 0;
  Constraints constraints;
  std::span<const uint8_t> spirv;     // empty when the database holds no SPIR-V
  // The specialisation constants `spirv` takes at pipeline creation (VkSpecializationInfo: one
  // map entry per constant, 4-byte values), in ascending constant_id; empty for a module that
  // has none (every kernel stored before sizes were specialised). Passing them is part of the
  // contract: without them the module runs the shader's default sizes, not this variant.
  std::span<const SpecConstant> specialization;
  std::optional<double> median_ns;    // its measured time on the matched problem (not the query's)

  DeviceMatch device_match = DeviceMatch::builtin;
  ShapeMatch shape_match = ShapeMatch::builtin;
  // Distance to the matched problem: between their ShapeIndex::point (ln M, 2 ln N, 2 ln K;
  // attention: ln M, ln L, ln D), with the group sizes' log ratio added in quadrature where they
  // differ (runtime/rank.h, kOtherGroupSizeScale for a neighbour of another tuned group size), and
  // the head counts' (runtime/snapshot.cpp, heads_distance; kOtherHeadsScale on a ranked pick)
  // where the matched problem's differ from the query's; 0 when exact or builtin.
  double shape_distance = 0;
  std::string_view matched_device_name;
  uint32_t matched_driver_version = 0;
  uint32_t matched_m = 0, matched_n = 0, matched_k = 0, matched_group_size = 0;
  // sdpa: the head counts it was tuned at; where the device tuned none of the query's, the
  // nearest ones (runtime/snapshot.cpp, group_for). 0 for other ops.
  uint32_t matched_heads = 0, matched_kv_heads = 0;
  // Which database answered: its Snapshot::source() (a path or a memory label), and its layer
  // in a Layers stack (0 = the top, the user's own); empty and -1 for built-in answers.
  std::string_view source;
  int layer = -1;

  bool ok() const noexcept { return status == Status::ok; }
};

std::string_view to_string(DeviceMatch m) noexcept;
std::string_view to_string(ShapeMatch m) noexcept;
std::string_view to_string(Status s) noexcept;

}  // namespace vktune::runtime
