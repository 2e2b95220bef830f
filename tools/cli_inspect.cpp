// `vktune inspect`: what the driver's compiler made of each legal variant of a problem
// (registers, shared memory, spills: VK_KHR_pipeline_executable_properties), to explain a
// variant's speed by the resources it holds.
#include <cstdio>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/vk/compiler_probe.h"
#include "kernels/family.h"
#include "kernels/vk/kernel_instance.h"
#include "kernels/knobs.h"
#include "kernels/vk/shader_compiler.h"
#include "kernels/vk/device.h"
#include "kernels/vk/device_select.h"
#include "kernels/vk/pipeline_statistics.h"
#include "tools/cli.h"

namespace vktune::cli {
namespace {

struct InspectFlags {
  DeviceOptions device;
  ShapeOptions shape;
  std::string family;
  std::vector<std::string> variants;
};

// One line per variant: its key, then every statistic as name=value (the driver's names),
// flushed as soon as it is known: a family's variants take minutes to compile, and a run cut
// short still leaves what it inspected.
void print_row(const std::string& key, const std::vector<vk::PipelineStatistic>& statistics) {
  std::printf("%s", key.c_str());
  for (const vk::PipelineStatistic& s : statistics) {
    std::printf("  %s=%s", s.name.c_str(), s.value.c_str());
  }
  std::printf("\n");
  std::fflush(stdout);
}

void run_inspect(const InspectFlags& flags) {
  kernels::Problem problem;
  const ShapeOptions& shape = flags.shape;
  const std::optional<kernels::Op> op = kernels::parse_op(shape.op);
  if (!op) throw std::invalid_argument("unknown op " + shape.op + "; " + kernels::op_names_text());
  const std::optional<kernels::DType> dtype = kernels::parse_dtype(shape.dtype);
  if (!dtype) throw std::invalid_argument("unknown dtype " + shape.dtype + "; f32 or f16");
  problem.op = *op;
  problem.dtype = *dtype;
  problem.m = shape.m;
  problem.n = shape.n;
  problem.k = shape.k;
  problem.group_size = shape.gs;
  problem.heads = shape.heads;
  problem.kv_heads = shape.kv_heads;
  problem = kernels::op_descriptor(*op).with_defaults(problem);
  kernels::require_valid(problem);

  const vk::Instance instance = create_instance();
  const auto devices = instance.devices();
  const size_t index = vk::select_device(devices, vk::device_request(flags.device.device));
  vk::Device device = vk::Device::create(instance, index);
  if (!device.info().features.pipeline_executable_properties) {
    throw std::runtime_error(device.info().name +
                             " has no VK_KHR_pipeline_executable_properties: no statistics");
  }

  // The variants asked for, else every legal variant of the family (or of every family).
  std::vector<std::pair<const kernels::Family*, kernels::Knobs>> chosen;
  std::vector<std::string> unavailable;  // "unavailable: reason"
  for (const std::string& key : flags.variants) {
    kernels::ParsedKey parsed = kernels::parse_key(key);
    const kernels::Family* family = kernels::find_family(parsed.family);
    if (family == nullptr) throw std::invalid_argument("unknown family in " + key);
    chosen.emplace_back(family, std::move(parsed.knobs));
  }
  if (flags.variants.empty()) {
    for (const kernels::Family* family : kernels::families()) {
      if (family->op() != problem.op || family->dtype() != problem.dtype) continue;
      if (!flags.family.empty() && family->name() != flags.family) continue;
      // A family that cannot run here at all is one line with the reason, not N illegal ones.
      std::string why = family->unavailable_reason(device.info(), linked_compiler_support());
      if (!why.empty()) {
        unavailable.push_back("unavailable: " + why);  // the reason names the family
        continue;
      }
      for (kernels::Knobs& knobs : family->all_variants()) chosen.emplace_back(family, knobs);
    }
    if (chosen.empty() && unavailable.empty()) {
      throw std::invalid_argument("no family named " + flags.family);
    }
  }

  std::printf("vktune inspect: %s on [%zu] %s\n", kernels::describe(problem).c_str(), index,
              device.info().name.c_str());
  for (const std::string& line : unavailable) std::printf("%s\n", line.c_str());
  std::fflush(stdout);
  ShaderCompiler compiler;
  size_t inspected = 0, illegal = 0;
  for (const auto& [family, knobs] : chosen) {
    const kernels::Legality legal =
        family->legality(knobs, problem, device.info(), linked_compiler_support());
    if (!legal) {
      ++illegal;
      if (!flags.variants.empty()) {
        std::printf("%s: illegal: %s\n", family->key(knobs).c_str(), legal.reason.c_str());
      }
      continue;
    }
    const auto pipeline = kernels::KernelInstance::pipeline(device, compiler, *family, knobs);
    print_row(family->key(knobs), vk::pipeline_statistics(device, *pipeline));
    ++inspected;
  }
  std::printf("%zu variants inspected, %zu illegal for this problem\n", inspected, illegal);
}

}  // namespace

void add_inspect_command(CLI::App& app) {
  auto flags = std::make_shared<InspectFlags>();
  auto* cmd = app.add_subcommand(
      "inspect", "print the driver's compiler statistics (registers, shared memory, spills) "
                 "of a problem's legal variants");
  add_device_option(*cmd, flags->device);
  add_shape_options(*cmd, flags->shape, false);
  cmd->add_option("--family", flags->family, "only this family's variants");
  cmd->add_option("--variant", flags->variants, "only these variant keys (repeatable)");
  cmd->callback([flags] { run_inspect(*flags); });
}

}  // namespace vktune::cli
