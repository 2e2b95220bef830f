// `vktune merge`, `export`, `import` and `lookup`: database housekeeping and the runtime's
// answer for one problem, with its provenance. The logic lives in db/ops/db_tools.h;
// this file only wires options and, for lookup, reads the default Vulkan device.
#include <cstdio>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "db/ops/db_tools.h"
#include "kernels/op.h"
#include "kernels/vk/shader_compiler.h"
#include "kernels/device_info.h"
#include "kernels/vk/device_select.h"
#include "kernels/vk/instance.h"
#include "tools/cli.h"
#include "tools/engine/device_query.h"
#include "tuner/records.h"

namespace vktune::cli {
namespace {

struct LookupOptions {
  std::string db;
  DeviceOptions device;
  std::string vendor_id, device_id, driver_id, driver_version, device_type, uuid;
  ShapeOptions shape;
  bool json = false;
};

std::optional<uint32_t> flag_u32(const std::string& text, const char* what) {
  if (text.empty()) return std::nullopt;
  return db::ops::parse_u32(text, what);
}

void run_lookup(const LookupOptions& o) {
  require_file_inputs({o.db});
  const db::Catalog catalog = db::ops::read_catalog(o.db);
  runtime::LookupDevice device;
  const bool by_flags = !o.vendor_id.empty() || !o.device_id.empty() || !o.driver_id.empty() ||
                        !o.driver_version.empty() || !o.device_type.empty() || !o.uuid.empty();
  if (by_flags) {
    if (!o.device.device.empty()) {
      throw std::invalid_argument(
          "--device picks a Vulkan device; it does not combine with "
          "--vendor-id/--device-id/--driver-version");
    }
    db::ops::DeviceFlags flags;
    flags.vendor_id = flag_u32(o.vendor_id, "--vendor-id");
    flags.device_id = flag_u32(o.device_id, "--device-id");
    flags.driver_id = flag_u32(o.driver_id, "--driver-id");
    flags.driver_version = flag_u32(o.driver_version, "--driver-version");
    flags.device_type = o.device_type;
    flags.pipeline_cache_uuid = o.uuid;
    device = db::ops::device_from_flags(flags, catalog);
  } else {
    const vk::Instance instance = create_instance();
    const std::vector<vk::DeviceInfo> devices = instance.devices();
    device = engine::lookup_device(
        devices.at(vk::select_device(devices, vk::device_request(o.device.device))));
  }
  runtime::ProblemQuery problem;
  problem.op = o.shape.op;
  problem.dtype = o.shape.dtype;
  problem.m = o.shape.m;
  problem.n = o.shape.n;
  problem.k = o.shape.k_or_default();
  problem.group_size = o.shape.gs;
  problem.heads = o.shape.heads;
  problem.kv_heads = o.shape.kv_heads;
  // The runtime ignores heads where the op has none; a user who typed them meant something else.
  const kernels::OpDescriptor* op = kernels::find_op(problem.op);
  if (op != nullptr && !op->has_heads && (problem.heads != 0 || problem.kv_heads != 0)) {
    throw std::invalid_argument("--heads and --kv-heads are attention's; " + o.shape.op +
                                " has none");
  }
  const db::ops::LookupResult r = db::ops::lookup(catalog, device, problem, o.json);
  std::fputs(r.output.c_str(), stdout);
  std::fflush(stdout);
  if (!r.ok) throw CLI::RuntimeError(3);
}

}  // namespace

void add_merge_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("merge", "merge databases into one (loss-free, idempotent)");
  auto inputs = std::make_shared<std::vector<std::string>>();
  auto output = std::make_shared<std::string>();
  cmd->add_option("inputs", *inputs, "databases to merge (A.db B.db ...)")->required();
  cmd->add_option("-o,--output", *output, "merged database; created if missing")->required();
  cmd->callback([inputs, output] {
    for (const std::string& input : *inputs) {
      require_file_inputs({input});
      refuse_to_overwrite(input, *output);
    }
    const auto stats = db::ops::merge_databases(*inputs, *output);
    for (size_t i = 0; i < stats.size(); ++i) {
      std::printf("%s: %s\n", (*inputs)[i].c_str(), db::ops::format_stats(stats[i]).c_str());
    }
    std::printf("merged %zu database(s) into %s\n", stats.size(), output->c_str());
  });
}

void add_export_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("export", "write a database as one JSON document");
  auto db = std::make_shared<std::string>();
  auto output = std::make_shared<std::string>();
  cmd->add_option("--db", *db, "kernel database (.db)")->required();
  auto indent = std::make_shared<int>(1);
  cmd->add_option("-o,--output", *output, "JSON file; - for standard output")->required();
  cmd->add_option("--indent", *indent, "spaces per level; -1 writes compact JSON")
      ->check(CLI::Range(-1, 8))
      ->capture_default_str();
  auto winners_only = std::make_shared<bool>(false);
  cmd->add_flag("--winners-only", *winners_only,
                "only the winners and what they refer to (what a runtime loads), with SPIR-V for "
                "every kernel a runtime can answer with (compiled where the database lacks it)");
  cmd->callback([db, output, indent, winners_only] {
    require_file_inputs({*db});
    refuse_to_overwrite(*db, *output);
    ShaderCompiler compiler;
    db::ops::export_database(*db, *output, *indent, *winners_only,
                             [&compiler](db::KernelRecord& k) { tuner::fill_spirv(compiler, k); });
  });
}

void add_import_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("import", "add an exported JSON document to a database");
  auto json = std::make_shared<std::string>();
  auto db = std::make_shared<std::string>();
  cmd->add_option("json", *json, "JSON document written by `vktune export`")->required();
  cmd->add_option("--db", *db, "kernel database (.db); created if missing")->required();
  cmd->callback([json, db] {
    require_file_inputs({*json});
    refuse_to_overwrite(*json, *db);
    const db::ImportStats s = db::ops::import_database(*json, *db);
    std::printf("%s: %s\n", db->c_str(), db::ops::format_stats(s).c_str());
  });
}

void add_lookup_command(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "lookup", "the runtime's choice for one problem on one device, and how it was found");
  auto o = std::make_shared<LookupOptions>();
  cmd->add_option("--db", o->db, "kernel database (.db) or exported JSON")->required();
  add_device_option(*cmd, o->device);
  cmd->add_option("--vendor-id", o->vendor_id,
                  "query a device by fingerprint instead of the local one (hex 0x.. or decimal); "
                  "unset fields come from the database's matching device");
  cmd->add_option("--device-id", o->device_id, "PCI device id (hex or decimal)");
  cmd->add_option("--driver-id", o->driver_id, "VkDriverId (decimal or hex)");
  cmd->add_option("--driver-version", o->driver_version, "raw driverVersion (hex or decimal)");
  cmd->add_option("--device-type", o->device_type, "discrete, integrated, virtual, cpu or other");
  cmd->add_option("--uuid", o->uuid, "pipelineCacheUUID, 32 hex digits");
  add_shape_options(*cmd, o->shape, true);
  cmd->add_flag("--json", o->json, "print JSON");
  cmd->callback([o] { run_lookup(*o); });
}

}  // namespace vktune::cli
