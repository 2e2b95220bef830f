// Runtime selection -> SPIR-V and dispatch plan, checked against the device, with the built-in
// fallback. Only the runtime's contract (runtime/dispatch.h) is read, as any engine would.
#include "tools/engine/routing.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <stdexcept>

#include "kernels/op.h"
#include "kernels/vk/spirv_validate.h"
#include "runtime/builtin.h"
#include "tools/engine/device_query.h"

namespace vktune::engine {
namespace {

// Whether `device` has the feature the plan names (DeviceInfo reports what vk::Device enables).
bool has_feature(std::string_view name, const vk::DeviceInfo& device) {
  const vk::DeviceFeatures& f = device.features;
  if (name == "storageBuffer16BitAccess") return f.storage_16bit;
  if (name == "shaderFloat16") return f.shader_float16;
  if (name == "VK_SUBGROUP_FEATURE_ARITHMETIC_BIT") return f.subgroup_arithmetic;
  if (name == "VK_SUBGROUP_FEATURE_SHUFFLE_BIT") return f.subgroup_shuffle;
  if (name == "shaderIntegerDotProduct") return f.shader_integer_dot_product;
  if (name == "VK_NV_cooperative_matrix2") return f.coopmat2_nv;
  // The contract's shape for both cooperative-matrix APIs: 16x16x16, f16 * f16 + f32.
  if (name == "VK_NV_cooperative_matrix") return f.coopmat_nv && vk::has_f16_tile(f.coopmat_shapes);
  if (name == "VK_KHR_cooperative_matrix") {
    return f.coopmat_khr && vk::has_f16_tile(f.coopmat_khr_shapes);
  }
  return false;  // a feature this engine does not know how to enable
}

// The selection's answer with its SPIR-V and its plan for `q` on `device`; on failure returns a
// route without a family and the reason in `why`.
Route parse(const runtime::Selection& s, const runtime::ProblemQuery& q,
            const vk::DeviceInfo& device, std::string& why) {
  Route r;
  r.key = std::string(s.variant_key);
  r.plan = runtime::plan_dispatch(s, q, device.limits.max_workgroup_count);
  if (!r.plan.ok()) {
    why = r.plan.error;
    return r;
  }
  if (std::string e = device_error(r.plan, device); !e.empty()) {
    why = e;
    return r;
  }
  if (s.spirv.empty()) {
    why = "the database holds no SPIR-V for it";
    return r;
  }
  if (const std::string problem = kernels::spirv_validation_error(s.spirv, device.api_version);
      !problem.empty()) {
    why = "its SPIR-V " + problem;
    return r;
  }
  r.spirv.resize(s.spirv.size() / 4);
  std::memcpy(r.spirv.data(), s.spirv.data(), s.spirv.size());
  r.specialization.assign(s.specialization.begin(), s.specialization.end());
  r.knobs_json = std::string(s.knobs_json);
  r.family = std::string(s.family);
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

runtime::ProblemQuery to_query(const kernels::Problem& p) noexcept {
  runtime::ProblemQuery q;
  q.op = kernels::op_name(p.op);
  q.dtype = kernels::dtype_name(p.dtype);
  const kernels::Problem d = kernels::op_descriptor(p.op).with_defaults(p);
  q.m = d.m;
  q.n = d.n;
  q.k = d.k;
  q.group_size = d.group_size;
  q.heads = d.heads;
  q.kv_heads = d.kv_heads;
  return q;
}

std::string device_error(const runtime::DispatchPlan& plan, const vk::DeviceInfo& device) {
  for (const std::string& f : plan.required_features) {
    if (!has_feature(f, device)) return "needs " + f + ", which " + device.name + " lacks";
  }
  const uint32_t sg = device.subgroup_size;
  if (plan.required_subgroup_size != 0 && sg != plan.required_subgroup_size) {
    return "needs subgroup size " + std::to_string(plan.required_subgroup_size) + "; " +
           device.name + " has " + std::to_string(sg);
  }
  if (plan.subgroup_size_divides != 0 && (sg == 0 || plan.subgroup_size_divides % sg != 0)) {
    return "needs a subgroup size dividing " + std::to_string(plan.subgroup_size_divides) +
           "; " + device.name + " has " + std::to_string(sg);
  }
  const vk::DeviceLimits& lim = device.limits;
  if (plan.workgroup_size > std::min(lim.max_invocations, lim.max_workgroup_size[0])) {
    return "workgroup size " + std::to_string(plan.workgroup_size) + " exceeds " + device.name +
           "'s limit of " + std::to_string(std::min(lim.max_invocations, lim.max_workgroup_size[0]));
  }
  if (plan.shared_memory_bytes > lim.max_shared_memory_bytes) {
    return "needs " + std::to_string(plan.shared_memory_bytes) + " bytes of shared memory; " +
           device.name + " has " + std::to_string(lim.max_shared_memory_bytes);
  }
  if (plan.push_constants.size() > lim.max_push_constants_bytes) {
    return "pushes " + std::to_string(plan.push_constants.size()) + " bytes; " + device.name +
           " takes " + std::to_string(lim.max_push_constants_bytes);
  }
  for (const runtime::BindingPlan& b : plan.bindings) {
    if (b.alloc_bytes > lim.max_storage_buffer_range) {
      return std::string(b.name) + " is " + std::to_string(b.alloc_bytes) +
             " bytes, past maxStorageBufferRange (" +
             std::to_string(lim.max_storage_buffer_range) + ")";
    }
  }
  return {};
}

runtime::Selection Route::selection() const noexcept {
  runtime::Selection s;
  s.status = runtime::Status::ok;
  s.family = family;
  s.variant_key = key;
  s.knobs_json = knobs_json;
  s.layout = plan.layout;
  s.spirv = {reinterpret_cast<const uint8_t*>(spirv.data()), spirv.size() * sizeof(uint32_t)};
  s.specialization = specialization;
  return s;
}

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
    if (!r.routed()) continue;
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
  const runtime::ProblemQuery q = to_query(problem);
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
  Route r = parse(s, q, *device_, why);
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
  // Another problem's time (nearest) says nothing of this one's.
  if (r.source == Source::exact) r.tuned_ns = s.median_ns;
  if (r.routed()) return r;
  if (r.source == Source::builtin) {
    throw std::runtime_error(kernels::describe(problem) + ": the built-in variant " + r.key +
                             " cannot run on " + device_->name + ": " + why);
  }
  return fallback(problem, r, why);
}

Route Router::fallback(const kernels::Problem& problem, const Route& r,
                       const std::string& why) const {
  const runtime::ProblemQuery q = to_query(problem);
  runtime::Selection builtin;
  runtime::select_builtin(q, builtin);
  std::string builtin_why;
  Route b = parse(builtin, q, *device_, builtin_why);
  if (!b.routed()) {
    throw std::runtime_error(kernels::describe(problem) + ": the tuned variant " + r.key +
                             " cannot run here (" + why + ") and neither can the built-in " +
                             b.key + " (" + (builtin.ok() ? builtin_why : std::string(builtin.error)) + ")");
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
