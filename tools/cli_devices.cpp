// `vktune devices`: every Vulkan device with its fingerprint and the families it cannot run
// (with the reason), and the GLSL extensions the linked shader compiler accepts; a table or JSON.
#include <cstdio>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <nlohmann/json.hpp>

#include "kernels/vk/compiler_probe.h"
#include "kernels/family.h"
#include "kernels/device_info.h"
#include "kernels/vk/device_select.h"
#include "kernels/vk/instance.h"
#include "kernels/vk/prebuilt_spirv.h"
#include "tools/cli.h"

namespace vktune::cli {
namespace {

std::string yes_no(bool value) { return value ? "yes" : "no"; }

// The families no variant of which can run on `device` with the linked compiler, and why.
std::map<std::string, std::string> unavailable_families(const vk::DeviceInfo& device) {
  std::map<std::string, std::string> out;
  for (const kernels::Family* f : kernels::families()) {
    std::string why = f->unavailable_reason(device, linked_compiler_support());
    if (!why.empty()) out.emplace(f->name(), std::move(why));
  }
  return out;
}

// Per extension: whether the linked compiler accepts it, and whether every module that needs it
// ships prebuilt (kernels/vk/prebuilt_spirv.h).
nlohmann::json compiler_json() {
  nlohmann::json accepts = nlohmann::json::object(), prebuilt = nlohmann::json::object();
  for (const kernels::GlslExtensionDesc& e : kernels::glsl_extension_descs()) {
    accepts[std::string(e.name)] = probed_compiler_support().accepts(e.extension);
    prebuilt[std::string(e.name)] = prebuilt_support().accepts(e.extension);
  }
  return {{"accepts", accepts}, {"prebuilt", prebuilt}};
}

void print_table(const std::vector<vk::DeviceInfo>& devices, size_t chosen) {
  for (const vk::DeviceInfo& d : devices) {
    const vk::DeviceLimits& l = d.limits;
    const vk::DeviceFeatures& f = d.features;
    std::printf("[%u]%s %s\n", d.index, d.index == chosen ? " (default)" : "", d.name.c_str());
    std::printf("    type %s, vendor 0x%04x, device 0x%04x, API %s\n", vk::device_type_name(d.type),
                d.vendor_id, d.device_id, vk::api_version_text(d.api_version).c_str());
    std::printf("    driver %s %s (id %u, %s)\n", d.driver_name.c_str(),
                vk::driver_version_text(d.vendor_id, d.driver_version).c_str(), d.driver_id,
                d.driver_info.c_str());
    std::printf("    pipelineCacheUUID %s\n", vk::uuid_hex(d.pipeline_cache_uuid).c_str());
    std::printf("    subgroup %u, invocations %u, shared memory %u B, storage range %llu B\n",
                d.subgroup_size, l.max_invocations, l.max_shared_memory_bytes,
                static_cast<unsigned long long>(l.max_storage_buffer_range));
    std::printf("    workgroup count %u x %u x %u, timestamp %.3g ns x %u bits, compute units %s\n",
                l.max_workgroup_count[0], l.max_workgroup_count[1], l.max_workgroup_count[2],
                l.timestamp_period_ns, l.timestamp_valid_bits,
                l.compute_units != 0 ? std::to_string(l.compute_units).c_str() : "unknown");
    std::printf("    8-bit storage %s, 16-bit storage %s, float16 %s, int8 %s, subgroup "
                "arithmetic %s, subgroup shuffle %s\n",
                yes_no(f.storage_8bit).c_str(), yes_no(f.storage_16bit).c_str(),
                yes_no(f.shader_float16).c_str(), yes_no(f.shader_int8).c_str(),
                yes_no(f.subgroup_arithmetic).c_str(), yes_no(f.subgroup_shuffle).c_str());
    // ", NV shapes 16x16x16:f16->f32 ..." for a non-empty list.
    auto shapes = [](const char* api, const std::vector<vk::CoopMatShape>& list) {
      std::string text = list.empty() ? "" : std::string(", ") + api + " shapes";
      for (const vk::CoopMatShape& s : list) {
        text += " " + std::to_string(s.m) + "x" + std::to_string(s.n) + "x" +
                std::to_string(s.k) + ":" + s.a_type + "->" + s.result_type;
      }
      return text;
    };
    std::printf("    cooperative matrix NV %s KHR %s NV2 %s%s%s, integer dot product %s\n",
                yes_no(f.coopmat_nv).c_str(), yes_no(f.coopmat_khr).c_str(),
                yes_no(f.coopmat2_nv).c_str(), shapes("NV", f.coopmat_shapes).c_str(),
                shapes("KHR", f.coopmat_khr_shapes).c_str(),
                yes_no(f.shader_integer_dot_product).c_str());
    // Each reason names its family.
    for (const auto& [family, why] : unavailable_families(d)) {
      std::printf("    unavailable: %s\n", why.c_str());
    }
  }
  std::printf("shader compiler (linked):");
  for (const kernels::GlslExtensionDesc& e : kernels::glsl_extension_descs()) {
    std::printf(" %s %s%s", std::string(e.name).c_str(),
                yes_no(probed_compiler_support().accepts(e.extension)).c_str(),
                prebuilt_support().accepts(e.extension) ? " (prebuilt)" : "");
  }
  std::printf("\n");
}

}  // namespace

CLI::Option* add_device_option(CLI::App& command, DeviceOptions& options) {
  return command.add_option("--device", options.device,
                     "device index or name substring (default: VKTUNE_DEVICE, else the best GPU)");
}

void add_devices_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("devices", "list every Vulkan device with its fingerprint");
  auto json = std::make_shared<bool>(false);
  auto options = std::make_shared<DeviceOptions>();
  cmd->add_flag("--json", *json, "print JSON instead of a table");
  add_device_option(*cmd, *options);
  cmd->callback([json, options] {
    const vk::Instance instance = create_instance();
    const std::vector<vk::DeviceInfo> devices = instance.devices();
    const size_t chosen = vk::select_device(devices, vk::device_request(options->device));
    if (*json) {
      nlohmann::json list = nlohmann::json::array();
      for (const auto& d : devices) {
        nlohmann::json j = vk::to_json(d);
        j["unavailable_families"] = unavailable_families(d);
        list.push_back(std::move(j));
      }
      std::cout << nlohmann::json{{"default", chosen},
                                  {"devices", list},
                                  {"compiler", compiler_json()}}
                       .dump(2)
                << "\n";
    } else {
      print_table(devices, chosen);
    }
  });
}

}  // namespace vktune::cli
