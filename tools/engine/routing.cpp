// Runtime selection -> family + knobs, with legality checked and the built-in fallback.
#include "tools/engine/routing.h"

#include <cstdio>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "runtime/builtin.h"
#include "tools/engine/device_query.h"

namespace vktune::engine {
namespace {

runtime::ProblemQuery query(const kernels::Problem& p) {
  runtime::ProblemQuery q;
  q.op = kernels::op_name(p.op);
  q.dtype = kernels::dtype_name(p.dtype);
  q.m = p.m;
  q.n = p.n;
  q.k = p.op == kernels::Op::rms_norm ? p.n : p.k;
  q.group_size = p.op == kernels::Op::rms_norm ? 0 : p.group_size;
  q.heads = p.heads;
  q.kv_heads = p.kv_heads;
  return q;
}

// The family and knobs a selection names, legal for `problem` on `device`; on failure returns
// a route without a family and the reason in `why`.
Route parse(const runtime::Selection& s, const kernels::Problem& problem,
            const vk::DeviceInfo& device, std::string& why) {
  Route r;
  r.key = std::string(s.variant_key);
  const kernels::Family* family = kernels::find_family(s.family);
  if (family == nullptr) {
    why = "unknown family \"" + std::string(s.family) + "\"";
    return r;
  }
  try {
    r.knobs = family->knobs_from_json(nlohmann::json::parse(s.knobs_json));
  } catch (const std::exception& e) {
    why = std::string("bad knobs ") + std::string(s.knobs_json) + ": " + e.what();
    return r;
  }
  if (const kernels::Legality legal = family->legality(r.knobs, problem, device); !legal) {
    why = legal.reason;
    return r;
  }
  r.family = family;
  r.key = family->key(r.knobs);
  return r;
}

std::string shape_text(const runtime::Selection& s) {
  std::string text = "M=" + std::to_string(s.matched_m) + " N=" + std::to_string(s.matched_n);
  if (s.matched_group_size != 0) {
    text += " K=" + std::to_string(s.matched_k) + " gs=" + std::to_string(s.matched_group_size);
  }
  return text;
}

}  // namespace

std::string_view to_string(Source source) noexcept {
  switch (source) {
    case Source::exact:
      return "exact";
    case Source::nearest:
      return "nearest";
    case Source::builtin:
      return "builtin";
    case Source::fallback:
      return "fallback";
  }
  return "?";
}

std::string Route::how() const {
  std::string text(to_string(source));
  if (source != Source::exact && source != Source::nearest) return text;
  if (source == Source::nearest) {
    char d[32];
    std::snprintf(d, sizeof d, " d=%.2f from", distance);
    text += d;
  }
  text += " " + matched + ", device " + std::string(runtime::to_string(device_match));
  if (device_match != runtime::DeviceMatch::exact) text += " (" + matched_device + ")";
  return text;
}

RouteCounts count_routes(const std::vector<Route>& routes) {
  RouteCounts c;
  for (const Route& r : routes) {
    if (r.family == nullptr) continue;
    switch (r.source) {
      case Source::exact:
        ++c.exact;
        break;
      case Source::nearest:
        ++c.nearest;
        break;
      case Source::builtin:
        ++c.builtin;
        break;
      case Source::fallback:
        ++c.fallback;
        break;
    }
  }
  return c;
}

Router::Router(std::shared_ptr<const runtime::Snapshot> snapshot, const vk::DeviceInfo& device)
    : snapshot_(std::move(snapshot)), device_(&device), query_device_(lookup_device(device)) {}

Route Router::route(const kernels::Problem& problem) const {
  const runtime::ProblemQuery q = query(problem);
  runtime::Selection s;
  if (snapshot_) {
    s = snapshot_->select(query_device_.query(), q);
  } else {
    runtime::select_builtin(q, s);
  }
  if (!s.ok()) {
    throw std::runtime_error(kernels::describe(problem) + ": the runtime has no variant (" +
                             std::string(runtime::to_string(s.status)) + ": " +
                             std::string(s.error) + ")");
  }
  std::string why;
  Route r = parse(s, problem, *device_, why);
  r.device_match = s.device_match;
  r.distance = s.shape_distance;
  if (s.shape_match != runtime::ShapeMatch::builtin) {
    r.matched = shape_text(s);
    r.matched_device = std::string(s.matched_device_name);
  }
  // Ranked or copied, an untuned shape's answer came from the nearest tuned problems.
  r.source = s.shape_match == runtime::ShapeMatch::exact   ? Source::exact
             : s.shape_match == runtime::ShapeMatch::builtin ? Source::builtin
                                                             : Source::nearest;
  if (r.family != nullptr) return r;
  if (r.source == Source::builtin) {
    throw std::runtime_error(kernels::describe(problem) + ": the built-in variant " + r.key +
                             " cannot run on " + device_->name + ": " + why);
  }
  // The tuned choice cannot run here: say so and take the built-in routing.
  runtime::Selection builtin;
  runtime::select_builtin(q, builtin);
  std::string builtin_why;
  Route b = parse(builtin, problem, *device_, builtin_why);
  if (b.family == nullptr) {
    throw std::runtime_error(kernels::describe(problem) + ": the tuned variant " + r.key +
                             " cannot run here (" + why + ") and neither can the built-in " +
                             b.key + " (" + builtin_why + ")");
  }
  b.source = Source::fallback;
  b.device_match = r.device_match;
  b.distance = r.distance;
  b.matched = r.matched;
  b.matched_device = r.matched_device;
  b.rejected = r.key + " (" + r.how() + ") cannot run here: " + why;
  return b;
}

}  // namespace vktune::engine
