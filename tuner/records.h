// What the tuner stores: a device fingerprint, a problem and a variant as database records.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "db/records.h"
#include "kernels/family.h"
#include "kernels/problem.h"
#include "kernels/vk/shader_compiler.h"
#include "kernels/device_info.h"

namespace vktune::tuner {

db::DeviceRecord device_record(const vk::DeviceInfo& info);
db::Problem problem_record(const kernels::Problem& problem);
// Its inverse is kernels::problem_of(record) (without bias, which the record does not key by).
// `spirv` may be null (not stored); the source hash covers the shader and its includes.
db::KernelRecord kernel_record(const kernels::Family& family, const kernels::Knobs& knobs,
                               const Spirv* spirv);
// What this build compiles for a variant: its SPIR-V and the specialisation that SPIR-V takes
// (db/specialization_text.h's text).
struct CompiledKernel {
  std::vector<uint8_t> spirv;
  std::string specialization_json;
};
// `record`'s variant compiled now from its family and knobs with the shaders this build embeds
// (as the tuner compiles them). Throws db::Error naming the kernel when its family or knobs are
// unknown here or the shader does not compile.
CompiledKernel compile_current(ShaderCompiler& compiler, const db::KernelRecord& record);
// compile_current's SPIR-V for a record stored without it, to store beside the record: throws
// db::Error too where this build's shader takes other specialisation constants than the record
// stores (a kernel stored before its family's sizes were specialised), since the stored
// specialisation is the one a runtime would pass.
std::vector<uint8_t> compile_spirv(ShaderCompiler& compiler, const db::KernelRecord& record);
// Sets `record`'s SPIR-V and specialisation to compile_current's (db::SpirvSource for the
// winners' export, which writes both: a kernel stored before its family's sizes were specialised
// is exported with this build's module and the constants it takes). Throws as compile_current.
void fill_spirv(ShaderCompiler& compiler, db::KernelRecord& record);

}  // namespace vktune::tuner
