// The C API over Snapshot: converts plain C structs, never lets an exception cross.
#include <cstring>
#include <string>

#include "runtime/c_api_util.h"
#include "runtime/snapshot.h"

struct vktune_snapshot {
  std::shared_ptr<const vktune::runtime::Snapshot> snapshot;
};

namespace {

using vktune::runtime::Selection;

const char* c_str(std::string_view s) noexcept { return s.empty() ? "" : s.data(); }

using vktune::runtime::c_api::copy_error;

}  // namespace

extern "C" vktune_snapshot* vktune_snapshot_load(const char* path, char* err, size_t errlen) {
  if (path == nullptr) {
    copy_error("path is NULL", err, errlen);
    return nullptr;
  }
  try {
    std::string error;
    auto snap = vktune::runtime::Snapshot::load(path, &error);
    if (!snap) {
      copy_error(error, err, errlen);
      return nullptr;
    }
    return new vktune_snapshot{std::move(snap)};
  } catch (...) {
    copy_error("out of memory", err, errlen);
    return nullptr;
  }
}

extern "C" int vktune_select(const vktune_snapshot* snapshot, const vktune_device_query* device,
                             const vktune_problem_query* problem, vktune_selection* out) {
  if (out == nullptr) return VKTUNE_INVALID_QUERY;
  static const vktune::runtime::Snapshot kEmpty;  // NULL snapshot: built-in routing only
  Selection s;
  if (device == nullptr || problem == nullptr || problem->op == nullptr) {
    s.status = vktune::runtime::Status::invalid_query;
    s.error = "device, problem and problem->op must not be NULL";
  } else {
    vktune::runtime::DeviceQuery dq;
    dq.vendor_id = device->vendor_id;
    dq.device_id = device->device_id;
    dq.driver_id = device->driver_id;
    dq.driver_version = device->driver_version;
    dq.device_type = static_cast<vktune::runtime::DeviceType>(device->device_type);
    std::memcpy(dq.pipeline_cache_uuid.data(), device->pipeline_cache_uuid, 16);
    dq.name = device->name != nullptr ? device->name : "";
    const vktune::runtime::ProblemQuery pq = vktune::runtime::c_api::to_query(*problem);
    s = (snapshot != nullptr && snapshot->snapshot ? *snapshot->snapshot : kEmpty).select(dq, pq);
  }
  *out = vktune_selection{};
  out->status = static_cast<int>(s.status);
  out->error = c_str(s.error);
  out->family = c_str(s.family);
  out->variant_key = c_str(s.variant_key);
  out->knobs_json = c_str(s.knobs_json);
  out->constraints_json = c_str(s.constraints_json);
  out->layout = c_str(s.layout);
  out->workgroup_size = s.workgroup_size;
  out->spirv = s.spirv.empty() ? nullptr : s.spirv.data();
  out->spirv_size = s.spirv.size();
  out->has_median = s.median_ns.has_value();
  out->median_ns = s.median_ns.value_or(0.0);
  out->device_match = static_cast<int>(s.device_match);
  out->shape_match = static_cast<int>(s.shape_match);
  out->shape_distance = s.shape_distance;
  out->matched_device_name = c_str(s.matched_device_name);
  out->matched_m = s.matched_m;
  out->matched_n = s.matched_n;
  out->matched_k = s.matched_k;
  out->matched_group_size = s.matched_group_size;
  return out->status;
}

extern "C" void vktune_snapshot_free(vktune_snapshot* snapshot) { delete snapshot; }
