// Which variant runs each node: the runtime's answer for (op, M, N, K, gs) on this device,
// parsed back into a kernel family and knobs, checked for legality here, with the built-in
// routing as the fallback when the tuned choice cannot run.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "kernels/family.h"
#include "kernels/problem.h"
#include "kernels/vk/device_info.h"
#include "runtime/selection.h"
#include "runtime/snapshot.h"
#include "tools/report/db_tools.h"

namespace vktune::engine {

// How a node's variant was found.
enum class Source {
  exact,     // the database's winner for this very problem
  nearest,   // the winner of the nearest tuned problem (log-distance)
  builtin,   // built-in routing: no database, or nothing tuned that fits
  fallback,  // the database's choice cannot run here (Family::legality): built-in routing
};
std::string_view to_string(Source source) noexcept;

struct Route {
  const kernels::Family* family = nullptr;
  kernels::Knobs knobs;
  std::string key;  // canonical variant key
  Source source = Source::builtin;
  // For exact / nearest (and the rejected choice of a fallback): how the runtime matched.
  runtime::DeviceMatch device_match = runtime::DeviceMatch::builtin;
  double distance = 0;         // nearest: log-distance over (M, N, K)
  std::string matched;         // the tuned problem: "M=5 N=200 K=256 gs=32"
  std::string matched_device;  // the tuned device's name
  std::string rejected;        // fallback: the runtime's key and why it cannot run here

  // "exact M=1 N=256, device exact", "nearest d=0.69 from M=5 N=200 K=256 gs=32, device
  // other_driver (<name>)", "builtin", "fallback" (the rejected choice is in `rejected`).
  std::string how() const;
};

// How many routed nodes were found each way.
struct RouteCounts {
  size_t exact = 0, nearest = 0, builtin = 0, fallback = 0;
  friend bool operator==(const RouteCounts&, const RouteCounts&) = default;
};
// Counts the routes that have a family (elementwise nodes have none).
RouteCounts count_routes(const std::vector<Route>& routes);

class Router {
 public:
  // Routes through `snapshot` on `device`; a null snapshot means built-in routing only. The
  // router keeps a reference to `device`: it must outlive the router.
  Router(std::shared_ptr<const runtime::Snapshot> snapshot, const vk::DeviceInfo& device);

  bool tuned() const noexcept { return snapshot_ != nullptr; }

  // The variant for `problem` (q4gsw, rms_norm or sdpa). Throws std::runtime_error when the runtime
  // rejects the query or not even the built-in variant is legal on the device.
  Route route(const kernels::Problem& problem) const;

 private:
  std::shared_ptr<const runtime::Snapshot> snapshot_;
  const vk::DeviceInfo* device_;
  report::LookupDevice query_device_;  // owns the strings the DeviceQuery views
};

}  // namespace vktune::engine
