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
// The inverse (without bias, which the record does not key by), or nullopt for an op or dtype
// this build does not know.
std::optional<kernels::Problem> problem_from_record(const db::Problem& record);
// `spirv` may be null (not stored); the source hash covers the shader and its includes.
db::KernelRecord kernel_record(const kernels::Family& family, const kernels::Knobs& knobs,
                               const Spirv* spirv);
// The SPIR-V of `record` compiled now from its family and knobs with the shaders this build
// embeds (as the tuner compiles them), for a record stored without it: db::SpirvSource for the
// winners' export. Throws db::Error naming the kernel when its family or knobs are unknown here,
// this build's shader takes other specialisation constants than the record stores, or the
// shader does not compile.
std::vector<uint8_t> compile_spirv(ShaderCompiler& compiler, const db::KernelRecord& record);

}  // namespace vktune::tuner
