// Conversions from the kernels' vocabulary to the database's.
#include "tuner/records.h"

#include <nlohmann/json.hpp>

#include "db/error.h"
#include "db/specialization_text.h"

namespace vktune::tuner {
namespace {

// The text the database stores for `specialization`.
std::string specialization_text(const Specialization& specialization) {
  std::vector<db::SpecPair> pairs;
  pairs.reserve(specialization.size());
  for (const SpecConstant& c : specialization) pairs.push_back({c.constant_id, c.value});
  return db::specialization_text(pairs);
}

}  // namespace

db::DeviceRecord device_record(const vk::DeviceInfo& info) {
  db::DeviceRecord r;
  r.vendor_id = info.vendor_id;
  r.device_id = info.device_id;
  r.name = info.name;
  r.driver_id = info.driver_id;
  r.driver_version = info.driver_version;
  r.driver_version_text = vk::driver_version_text(info.vendor_id, info.driver_version);
  r.driver_info = info.driver_info;
  r.api_version = info.api_version;
  r.pipeline_cache_uuid = vk::uuid_hex(info.pipeline_cache_uuid);
  r.device_type = vk::device_type_name(info.type);
  r.subgroup_size = info.subgroup_size;
  nlohmann::json fingerprint = vk::to_json(info);
  r.properties_json = nlohmann::json{{"limits", fingerprint["limits"]},
                                     {"features", fingerprint["features"]}}
                          .dump();
  return r;
}

db::Problem problem_record(const kernels::Problem& problem) {
  db::Problem r;
  r.op = kernels::op_name(problem.op);
  r.dtype = kernels::dtype_name(problem.dtype);
  r.m = problem.m;
  r.n = problem.n;
  r.k = problem.k;
  r.group_size = problem.group_size;
  r.heads = problem.heads;
  r.kv_heads = problem.kv_heads;
  return r;
}

db::KernelRecord kernel_record(const kernels::Family& family, const kernels::Knobs& knobs,
                               const Spirv* spirv) {
  db::KernelRecord r;
  r.family = family.name();
  r.variant_key = family.key(knobs);
  r.knobs_json = kernels::to_json_text(knobs);
  r.constraints_json = kernels::to_json(family.constraints(knobs)).dump();
  r.layout = kernels::layout_name(family.layout(knobs));
  r.workgroup_size = family.workgroup_size(knobs);
  const kernels::ShaderSpec spec = family.shader(knobs);
  r.source_hash = embedded_source_hash(spec.file);
  r.specialization_json = specialization_text(spec.specialization);
  if (spirv != nullptr) {
    const auto* bytes = reinterpret_cast<const uint8_t*>(spirv->data());
    r.spirv = std::vector<uint8_t>(bytes, bytes + spirv->size() * sizeof(uint32_t));
  }
  return r;
}

CompiledKernel compile_current(ShaderCompiler& compiler, const db::KernelRecord& record) {
  const kernels::Family* family = kernels::find_family(record.family);
  if (family == nullptr) {
    throw db::Error(record.variant_key + ": family '" + record.family +
                    "' is not in this build's catalogue; its SPIR-V cannot be compiled");
  }
  try {
    const kernels::Knobs knobs = family->knobs_from_json(nlohmann::json::parse(record.knobs_json));
    const kernels::ShaderSpec spec = family->shader(knobs);
    const auto spirv = compiler.compile(spec, record.variant_key);
    const auto* bytes = reinterpret_cast<const uint8_t*>(spirv->data());
    return {{bytes, bytes + spirv->size() * sizeof(uint32_t)},
            specialization_text(spec.specialization)};
  } catch (const std::exception& e) {
    throw db::Error(record.variant_key + ": cannot compile its SPIR-V: " + e.what());
  }
}

std::vector<uint8_t> compile_spirv(ShaderCompiler& compiler, const db::KernelRecord& record) {
  CompiledKernel compiled = compile_current(compiler, record);
  // The record's specialisation goes with its SPIR-V: a module of this build that takes other
  // constants (a kernel stored before its sizes were specialised) cannot stand in for it.
  if (compiled.specialization_json != record.specialization_json) {
    throw db::Error(record.variant_key + ": stored with the specialisation " +
                    record.specialization_json + ", this build's shader takes " +
                    compiled.specialization_json + "; its SPIR-V cannot be compiled here");
  }
  return std::move(compiled.spirv);
}

void fill_spirv(ShaderCompiler& compiler, db::KernelRecord& record) {
  CompiledKernel compiled = compile_current(compiler, record);
  record.spirv = std::move(compiled.spirv);
  record.specialization_json = std::move(compiled.specialization_json);
}

}  // namespace vktune::tuner
