// Which variant runs each node, and how: the runtime's answer for (op, M, N, K, gs) on this
// device with what the runtime gives any engine to run it — its SPIR-V, its dispatch plan —
// checked against the device's features and limits here, with the built-in routing as the
// fallback when the tuned choice cannot run. Nothing here reads the kernel catalogue.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kernels/problem.h"
#include "kernels/device_info.h"
#include "runtime/dispatch.h"
#include "runtime/lookup_device.h"
#include "runtime/selection.h"
#include "runtime/snapshot.h"

namespace vktune::engine {

// How a node's variant was found.
enum class Source {
  exact,     // the database's winner for this very problem
  nearest,   // the winner of the nearest tuned problem (log-distance)
  builtin,   // built-in routing: no database, or nothing tuned that fits
  fallback,  // the database's choice cannot run here (no or invalid SPIR-V, refused plan, device,
             // a pipeline the driver fails to create): built-in
};
std::string_view to_string(Source source) noexcept;

struct Route {
  // The runtime's answer, owned (a Selection views the snapshot's storage). Empty family: an
  // elementwise node, which the engine runs with its own shaders.
  std::string family;
  std::string key;  // canonical variant key
  std::string knobs_json;
  std::vector<uint32_t> spirv;  // the Selection's SPIR-V: the database's, or the built-in's
  Specialization specialization;  // the Selection's: what `spirv` takes at pipeline creation
  runtime::DispatchPlan plan;   // for the routed problem, on this device's workgroup limits
  Source source = Source::builtin;
  // For exact / nearest (and the rejected choice of a fallback): how the runtime matched.
  runtime::DeviceMatch device_match = runtime::DeviceMatch::builtin;
  double distance = 0;         // nearest: log-distance over (M, N, K)
  std::string matched;         // the tuned problem: "M=5 N=200 K=256 gs=32"
  std::string matched_device;  // the tuned device's name
  std::string rejected;        // fallback: the runtime's key and why it cannot run here
  // exact: the variant's median alone on this very problem, as the database stores it (the
  // tuner's figure, at the run's --cache setting); what the node's time in a layer compares to.
  std::optional<double> tuned_ns;

  bool routed() const noexcept { return !family.empty(); }
  // An ok Selection viewing this route's strings and SPIR-V (valid while the route lives and is
  // not modified), to plan the same variant on another problem (attention at another context).
  runtime::Selection selection() const noexcept;

  // "exact M=1 N=256, device exact", "nearest d=0.69 from M=5 N=200 K=256 gs=32, device
  // other_driver (<name>)", "builtin", "fallback" (the rejected choice is in `rejected`).
  std::string how() const;
};

// How many routed nodes were found each way.
struct RouteCounts {
  size_t exact = 0, nearest = 0, builtin = 0, fallback = 0;
  friend bool operator==(const RouteCounts&, const RouteCounts&) = default;
};
// Counts the routed routes (elementwise nodes have none).
RouteCounts count_routes(const std::vector<Route>& routes);

// The runtime's question for `problem`.
runtime::ProblemQuery to_query(const kernels::Problem& problem) noexcept;

// Why `device` cannot run `plan`, or "" when it can: a required feature it lacks (the
// vk::Device enables every one it has), its subgroup size, the workgroup size, shared memory,
// push-constant bytes or a binding past its limits.
std::string device_error(const runtime::DispatchPlan& plan, const vk::DeviceInfo& device);

class Router {
 public:
  // Routes through `snapshot` on `device`; a null snapshot means built-in routing only. The
  // router keeps a reference to `device`: it must outlive the router.
  Router(std::shared_ptr<const runtime::Snapshot> snapshot, const vk::DeviceInfo& device);

  bool tuned() const noexcept { return snapshot_ != nullptr; }

  // The variant for `problem` (q4gsw, rms_norm or sdpa) with its SPIR-V and plan. A tuned answer
  // without SPIR-V, whose SPIR-V SPIRV-Tools' validator refuses for the device's Vulkan
  // (kernels/vk/spirv_validate.h), whose plan the runtime refuses, or that needs a feature or limit
  // the device lacks falls back to the built-in routing. Throws std::runtime_error when the
  // runtime rejects the query or not even the built-in variant can run on the device.
  Route route(const kernels::Problem& problem) const;
  // The built-in routing's variant for `problem` in place of `rejected` (a tuned route), which
  // cannot run here for the reason `why` (e.g. the driver failed to create its pipeline):
  // Source::fallback, with `rejected`'s key, how it was found and `why` in `rejected`. Throws
  // std::runtime_error when the built-in variant cannot run on the device either.
  Route fallback(const kernels::Problem& problem, const Route& rejected,
                 const std::string& why) const;

 private:
  std::shared_ptr<const runtime::Snapshot> snapshot_;
  const vk::DeviceInfo* device_;
  runtime::LookupDevice query_device_;  // owns the strings the DeviceQuery views
};

}  // namespace vktune::engine
