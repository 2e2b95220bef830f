// The C API over Layers (a loaded file is a stack of one): converts plain C structs, never
// lets an exception cross.
#include <cstddef>
#include <cstring>
#include <string>

#include "runtime/c_api_util.h"
#include "runtime/environment.h"
#include "runtime/layers.h"
#include "runtime/snapshot.h"

struct vktune_snapshot {
  std::shared_ptr<const vktune::runtime::Layers> layers;
};

namespace {

using vktune::runtime::Layers;
using vktune::runtime::Selection;
using vktune::runtime::Snapshot;
using Snapshots = std::vector<std::shared_ptr<const Snapshot>>;

const char* c_str(std::string_view s) noexcept { return s.empty() ? "" : s.data(); }

using vktune::runtime::c_api::copy_error;

// A C handle for one loaded snapshot, or NULL with the message.
vktune_snapshot* wrap(std::shared_ptr<const Snapshot> snap, const std::string& error, char* err,
                      size_t errlen) {
  if (!snap) {
    copy_error(error, err, errlen);
    return nullptr;
  }
  return new vktune_snapshot{std::make_shared<const Layers>(Snapshots{std::move(snap)})};
}

// The snapshots of `count` handles, each handle's own layers in place, top first.
Snapshots flatten(const vktune_snapshot* const* top_first, size_t count) {
  Snapshots out;
  for (size_t i = 0; i < count; ++i) {
    if (top_first[i] == nullptr) continue;
    const Snapshots& own = top_first[i]->layers->snapshots();
    out.insert(out.end(), own.begin(), own.end());
  }
  return out;
}

}  // namespace

extern "C" vktune_snapshot* vktune_snapshot_load(const char* path, char* err, size_t errlen) {
  if (path == nullptr) {
    copy_error("path is NULL", err, errlen);
    return nullptr;
  }
  try {
    std::string error;
    auto snap = Snapshot::load(path, &error);
    return wrap(std::move(snap), error, err, errlen);
  } catch (...) {
    copy_error("out of memory", err, errlen);
    return nullptr;
  }
}

extern "C" vktune_snapshot* vktune_snapshot_load_memory(const void* data, size_t size,
                                                        const char* label, char* err,
                                                        size_t errlen) {
  if (data == nullptr && size != 0) {
    copy_error("data is NULL", err, errlen);
    return nullptr;
  }
  try {
    std::string error;
    const std::span bytes(static_cast<const uint8_t*>(data), size);
    auto snap = Snapshot::load_memory(bytes, label != nullptr ? label : "memory", &error);
    return wrap(std::move(snap), error, err, errlen);
  } catch (...) {
    copy_error("out of memory", err, errlen);
    return nullptr;
  }
}

extern "C" vktune_snapshot* vktune_snapshot_layer(const vktune_snapshot* const* top_first,
                                                  size_t count, char* err, size_t errlen) {
  if (top_first == nullptr && count != 0) {
    copy_error("top_first is NULL", err, errlen);
    return nullptr;
  }
  try {
    return new vktune_snapshot{std::make_shared<const Layers>(flatten(top_first, count))};
  } catch (...) {
    copy_error("out of memory", err, errlen);
    return nullptr;
  }
}

extern "C" vktune_snapshot* vktune_snapshot_from_environment(
    const vktune_snapshot* const* top_first, size_t count, char* err, size_t errlen) {
  if (top_first == nullptr && count != 0) {
    copy_error("top_first is NULL", err, errlen);
    return nullptr;
  }
  try {
    std::string error;
    auto layers = vktune::runtime::layers_from_environment(flatten(top_first, count), &error);
    if (!layers) {
      copy_error(error, err, errlen);
      return nullptr;
    }
    return new vktune_snapshot{std::move(layers)};
  } catch (...) {
    copy_error("out of memory", err, errlen);
    return nullptr;
  }
}

namespace {

// The answer of `snapshot` (NULL: built-in routing only), or an invalid query's for NULL
// arguments.
Selection select(const vktune_snapshot* snapshot, const vktune_device_query* device,
                 const vktune_problem_query* problem) noexcept {
  static const Layers kEmpty({});
  Selection s;
  if (device == nullptr || problem == nullptr || problem->op == nullptr) {
    s.status = vktune::runtime::Status::invalid_query;
    s.error = "device, problem and problem->op must not be NULL";
    return s;
  }
  vktune::runtime::DeviceQuery dq;
  dq.vendor_id = device->vendor_id;
  dq.device_id = device->device_id;
  dq.driver_id = device->driver_id;
  dq.driver_version = device->driver_version;
  dq.device_type = static_cast<vktune::runtime::DeviceType>(device->device_type);
  std::memcpy(dq.pipeline_cache_uuid.data(), device->pipeline_cache_uuid, 16);
  dq.name = device->name != nullptr ? device->name : "";
  const vktune::runtime::ProblemQuery pq = vktune::runtime::c_api::to_query(*problem);
  return (snapshot != nullptr ? *snapshot->layers : kEmpty).select(dq, pq);
}

void fill(const Selection& s, vktune_selection* out) noexcept {
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
  out->matched_heads = s.matched_heads;
  out->matched_kv_heads = s.matched_kv_heads;
  out->source = c_str(s.source);
  out->layer = s.layer;
}

// The smallest vktune_selection_ext a caller's header can declare: its first version's.
constexpr size_t kFirstExtSize = offsetof(vktune_selection_ext, specialization_count) + sizeof(size_t);

// The fields of *ext its struct_size covers (every one of the first version's).
void fill_ext(const Selection& s, vktune_selection_ext* ext) noexcept {
  static_assert(sizeof(vktune_spec_constant) == sizeof(vktune::SpecConstant) &&
                offsetof(vktune_spec_constant, value) == offsetof(vktune::SpecConstant, value));
  ext->specialization = s.specialization.empty()
                            ? nullptr
                            : reinterpret_cast<const vktune_spec_constant*>(s.specialization.data());
  ext->specialization_count = s.specialization.size();
}

}  // namespace

extern "C" int vktune_select(const vktune_snapshot* snapshot, const vktune_device_query* device,
                             const vktune_problem_query* problem, vktune_selection* out) {
  if (out == nullptr) return VKTUNE_INVALID_QUERY;
  fill(select(snapshot, device, problem), out);
  return out->status;
}

extern "C" int vktune_select_ext(const vktune_snapshot* snapshot,
                                 const vktune_device_query* device,
                                 const vktune_problem_query* problem, vktune_selection* out,
                                 vktune_selection_ext* ext) {
  if (out == nullptr) return VKTUNE_INVALID_QUERY;
  if (ext != nullptr && ext->struct_size < kFirstExtSize) {
    Selection s;
    s.status = vktune::runtime::Status::invalid_query;
    s.error = "ext->struct_size is below sizeof(vktune_selection_ext) of any header; set it to "
              "sizeof(vktune_selection_ext)";
    fill(s, out);
    return out->status;
  }
  const Selection s = select(snapshot, device, problem);
  fill(s, out);
  if (ext != nullptr) fill_ext(s, ext);
  return out->status;
}

extern "C" void vktune_snapshot_free(vktune_snapshot* snapshot) { delete snapshot; }
