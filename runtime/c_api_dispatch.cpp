// The C API of the dispatch contract and the prepack: plain C structs over runtime/dispatch.h,
// no exception crosses.
#include <algorithm>
#include <cstring>
#include <string>

#include "kernels/requirements.h"
#include "runtime/c_api_util.h"
#include "runtime/dispatch.h"

namespace {

using vktune::runtime::c_api::copy_error;

int refuse(vktune_dispatch* out, std::string_view why) noexcept {
  out->status = VKTUNE_INVALID_QUERY;
  copy_error(why, out->error, sizeof out->error);
  return out->status;
}

}  // namespace

extern "C" int vktune_plan_dispatch(const vktune_selection* selection,
                                    const vktune_problem_query* problem,
                                    const uint32_t max_workgroup_count[3], vktune_dispatch* out) {
  if (out == nullptr) return VKTUNE_INVALID_QUERY;
  *out = vktune_dispatch{};
  if (selection == nullptr || problem == nullptr || problem->op == nullptr ||
      max_workgroup_count == nullptr) {
    return refuse(out, "selection, problem, problem->op and max_workgroup_count must not be NULL");
  }
  vktune::runtime::Selection s;
  s.status = static_cast<vktune::runtime::Status>(selection->status);
  s.error = selection->error != nullptr ? selection->error : "";
  s.family = selection->family != nullptr ? selection->family : "";
  s.variant_key = selection->variant_key != nullptr ? selection->variant_key : "";
  s.knobs_json = selection->knobs_json != nullptr ? selection->knobs_json : "";
  const vktune::runtime::DispatchPlan plan = vktune::runtime::plan_dispatch(
      s, vktune::runtime::c_api::to_query(*problem),
      {max_workgroup_count[0], max_workgroup_count[1], max_workgroup_count[2]});
  if (!plan.ok()) return refuse(out, plan.error);
  if (plan.push_constants.size() > VKTUNE_MAX_PUSH_BYTES ||
      plan.bindings.size() > VKTUNE_MAX_BINDINGS) {
    return refuse(out, "the variant needs more push-constant bytes or bindings than this C API "
                       "carries; use the C++ API (runtime/dispatch.h)");
  }
  out->status = VKTUNE_OK;
  std::memcpy(out->push_constants, plan.push_constants.data(), plan.push_constants.size());
  out->push_constant_size = static_cast<uint32_t>(plan.push_constants.size());
  for (const vktune::runtime::BindingPlan& b : plan.bindings) {
    // The names are string literals of the op table: NUL-terminated, static.
    out->bindings[out->binding_count++] = {b.binding, b.name.data(), b.bytes, b.alloc_bytes,
                                           b.written ? 1 : 0, b.zero_once ? 1 : 0};
  }
  std::copy(plan.groups.begin(), plan.groups.end(), out->groups);
  out->workgroup_size = plan.workgroup_size;
  out->shared_memory_bytes = plan.shared_memory_bytes;
  copy_error(plan.layout, out->layout, sizeof out->layout);
  out->required_features = plan.required_feature_bits;
  out->required_subgroup_size = plan.required_subgroup_size;
  out->subgroup_size_divides = plan.subgroup_size_divides;
  out->tolerance = plan.tolerance;
  return out->status;
}

extern "C" const char* vktune_feature_name(uint32_t feature_bit) {
  for (const vktune::kernels::FeatureDesc& f : vktune::kernels::feature_descs()) {
    // The names are string literals of the feature table: NUL-terminated, static.
    if (static_cast<uint32_t>(f.feature) == feature_bit) return f.name.data();
  }
  return "";
}

extern "C" uint64_t vktune_prepacked_size(const char* layout, uint32_t n, uint32_t k) {
  return vktune_prepacked_weight_size(layout, n, k, 0);
}

extern "C" uint64_t vktune_prepacked_weight_size(const char* layout, uint32_t n, uint32_t k,
                                                 uint32_t group_size) {
  return layout == nullptr ? 0 : vktune::runtime::prepacked_bytes(layout, n, k, group_size);
}

extern "C" int vktune_prepack(const char* layout, const uint8_t* raw, size_t raw_size, uint32_t n,
                              uint32_t k, uint8_t* out, size_t out_size, char* err,
                              size_t errlen) {
  if (layout != nullptr && std::string_view(layout) == "packed_s16") {
    copy_error("packed_s16 holds the scales: use vktune_prepack_weight", err, errlen);
    return VKTUNE_INVALID_QUERY;
  }
  return vktune_prepack_weight(layout, raw, raw_size, nullptr, 0, n, k, 0, out, out_size, err,
                               errlen);
}

extern "C" int vktune_prepack_weight(const char* layout, const uint8_t* raw, size_t raw_size,
                                     const float* scales, size_t scale_count, uint32_t n,
                                     uint32_t k, uint32_t group_size, uint8_t* out,
                                     size_t out_size, char* err, size_t errlen) {
  if (layout == nullptr || (raw == nullptr && raw_size > 0) ||
      (scales == nullptr && scale_count > 0) || out == nullptr) {
    copy_error("layout, raw, scales and out must not be NULL", err, errlen);
    return VKTUNE_INVALID_QUERY;
  }
  try {
    const uint64_t needed = vktune::runtime::prepacked_bytes(layout, n, k, group_size);
    if (out_size < needed) {
      copy_error("out holds " + std::to_string(out_size) + " bytes; " + layout + " needs " +
                     std::to_string(needed),
                 err, errlen);
      return VKTUNE_INVALID_QUERY;
    }
    std::vector<uint8_t> packed;
    const std::string error = vktune::runtime::prepack(
        layout, std::span<const uint8_t>(raw, raw_size), std::span<const float>(scales, scale_count),
        n, k, group_size, packed);
    if (!error.empty()) {
      copy_error(error, err, errlen);
      return VKTUNE_INVALID_QUERY;
    }
    std::memcpy(out, packed.data(), packed.size());
    return VKTUNE_OK;
  } catch (...) {
    copy_error("out of memory", err, errlen);
    return VKTUNE_INVALID_QUERY;
  }
}
