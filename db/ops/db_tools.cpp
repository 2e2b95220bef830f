// merge / export / import / lookup: thin layers over db::Store, db/json_io and
// runtime::Snapshot that add the catalogue's checks and name the file in every refusal.
#include "db/ops/db_tools.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>

#include "db/atomic_write.h"
#include "db/database_file.h"
#include "db/error.h"
#include "db/json_io.h"
#include "kernels/device_info.h"
#include "kernels/device_type.h"
#include "kernels/op.h"
#include "kernels/problem.h"
#include "kernels/vk/spirv_validate.h"
#include "runtime/describe.h"
#include "runtime/snapshot.h"
#include "runtime/stored_device.h"

namespace vktune::db::ops {
namespace {

namespace fs = std::filesystem;

void require_file(const std::string& path, std::string_view what) {
  std::error_code ec;
  if (!fs::exists(path, ec))
    throw Error(std::string(what) + " \"" + path + "\" does not exist");
  if (fs::is_directory(path, ec))
    throw Error(std::string(what) + " \"" + path + "\" is a directory");
}

bool same_file(const std::string& a, const std::string& b) {
  std::error_code ec;
  return fs::exists(a, ec) && fs::exists(b, ec) && fs::equivalent(a, b, ec);
}

// Runs `write` on the database at `path`, opened read-write (created when missing). When this
// call created the file and `write` throws, it removes the file and its side files, so a
// failed create leaves nothing behind. (Another process that created the same new path at the
// same instant shares the file; a failure here removes it under that one's feet, which is why
// merge opens its inputs before calling.)
template <class Write>
auto write_database(const std::string& path, Write&& write) {
  std::error_code ec;
  const bool existed = fs::exists(path, ec);
  try {
    db::Store store = db::Store::open(path, db::OpenMode::read_write);
    return write(store);
  } catch (...) {
    if (!existed) {
      for (const char* suffix : {"", "-wal", "-shm", "-journal"}) fs::remove(path + suffix, ec);
    }
    throw;
  }
}

std::array<uint8_t, 16> parse_uuid(std::string_view hex) {
  std::array<uint8_t, 16> out{};
  if (hex.size() != 32)
    throw Error("pipeline cache UUID \"" + std::string(hex) + "\" must be 32 hex digits");
  for (size_t i = 0; i < 16; ++i) {
    unsigned v = 0;
    const auto [p, ec] = std::from_chars(hex.data() + 2 * i, hex.data() + 2 * i + 2, v, 16);
    if (ec != std::errc() || p != hex.data() + 2 * i + 2) {
      throw Error("pipeline cache UUID \"" + std::string(hex) + "\" must be 32 hex digits");
    }
    out[i] = static_cast<uint8_t>(v);
  }
  return out;
}

std::string hex4(uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%04x", v);
  return buf;
}

// Why the runtime could never answer for stored problem `p` (an op or dtype it does not know,
// a shape no kernel runs), or empty: an import refuses such a row, and so does every command
// that reads an exported document.
std::string problem_error(const db::Problem& p) {
  const std::optional<kernels::Problem> problem = kernels::problem_of(p);
  if (!kernels::parse_op(p.op)) {
    return "op \"" + p.op + "\" is none of this vktune's (" + kernels::op_names_text() + ")";
  }
  if (!problem) return "dtype \"" + p.dtype + "\" is none of this vktune's (f32, f16)";
  return kernels::validate(*problem);
}

// A measurement's GB/s and GFLOP/s as the tuner stores them (tuner/session_stages.cpp): the bytes
// of every binding of the problem in the kernel's layout (what KernelInstance::bytes_moved
// counts) and the op's flops, over the median.
std::optional<db::Rates> measured_rates(const db::Problem& p, const db::KernelRecord& k,
                                        double median_ns) {
  const std::optional<kernels::Problem> problem = kernels::problem_of(p);
  const std::optional<kernels::Layout> layout = kernels::layout_from_name(k.layout);
  if (!problem || !layout || !(median_ns > 0)) return std::nullopt;
  const auto bytes = static_cast<double>(kernels::binding_sizes(*problem, *layout).total());
  return db::Rates{bytes / median_ns, kernels::flops(*problem) / median_ns};
}

// What every command that stores or reads a database checks beyond db/'s own rules: problems
// the runtime could answer for, modules SPIRV-Tools validates (under the Vulkan the module
// declares: no device is at hand); and the rates an export leaves out.
const db::ImportChecks kChecks{
    problem_error,
    [](std::span<const uint8_t> spirv) { return kernels::spirv_validation_error(spirv); },
    measured_rates};

// db::open_for_reading with those checks: a document's rows, and an SQLite database's, are
// refused as an import's are.
db::Store open_checked(const std::string& path) {
  return db::open_for_reading(path, db::IntegrityCheck::quick_check, kChecks);
}

}  // namespace

std::vector<db::ImportStats> merge_databases(const std::vector<std::string>& inputs,
                                             const std::string& output) {
  if (inputs.empty()) throw Error("merge needs at least one input database");
  if (output.empty()) throw Error("merge needs an output database; use -o FILE");
  for (const auto& in : inputs) {
    require_file(in, "input database");
    if (same_file(in, output)) {
      throw Error("input \"" + in + "\" is the output file; merge into a new file");
    }
  }
  // Every input is opened (and so checked) before the output is touched.
  std::vector<db::Store> sources;
  for (const auto& in : inputs) sources.push_back(open_checked(in));
  return write_database(output, [&](db::Store& target) {
    std::vector<db::ImportStats> stats;
    for (const db::Store& source : sources) stats.push_back(target.merge_from(source));
    return stats;
  });
}

void export_database(const std::string& db_path, const std::string& json_path, int indent,
                     bool winners_only, const db::SpirvSource& spirv_source) {
  require_file(db_path, "database");
  const db::Store store = open_checked(db_path);
  db::write_output(json_path,
                   db::export_json_text(store, indent,
                                        winners_only ? db::ExportScope::winners
                                                     : db::ExportScope::all,
                                        spirv_source));
}

db::ImportStats import_database(const std::string& json_path, const std::string& db_path) {
  require_file(json_path, "JSON document");
  const db::DatabaseContent content =
      db::database_content(db::read_regular_file(json_path), json_path);
  if (content.form() != db::DatabaseForm::json) {
    throw Error("\"" + json_path + "\" is an SQLite database, not a JSON document; " +
                "use `vktune merge` to combine databases");
  }
  return write_database(db_path, [&](db::Store& store) {
    return db::import_json_text(store, content.text(), json_path, kChecks);
  });
}

std::string format_stats(const db::ImportStats& s) {
  return "devices +" + std::to_string(s.devices) + ", kernels +" + std::to_string(s.kernels) +
         ", problems +" + std::to_string(s.problems) + ", runs +" + std::to_string(s.runs) +
         ", measurements +" + std::to_string(s.measurements) + ", coverage +" +
         std::to_string(s.coverage);
}

uint32_t parse_u32(std::string_view text, std::string_view what) {
  int base = 10;
  std::string_view digits = text;
  if (digits.size() > 2 && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X')) {
    base = 16;
    digits.remove_prefix(2);
  }
  uint32_t v = 0;
  const auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v, base);
  if (digits.empty() || ec != std::errc() || p != digits.data() + digits.size()) {
    throw Error(std::string(what) + " \"" + std::string(text) +
                "\" is not a 32-bit number; use decimal or 0x-prefixed hex");
  }
  return v;
}

runtime::DeviceType parse_device_type(std::string_view name) {
  if (const std::optional<runtime::DeviceType> type = vk::parse_device_type(name)) return *type;
  std::string known;
  for (std::string_view n : vk::kDeviceTypeNames) {
    known += (known.empty() ? "" : ", ") + std::string(n);
  }
  throw Error("device type \"" + std::string(name) + "\" is not one of " + known);
}

runtime::LookupDevice device_from_flags(const DeviceFlags& flags, const db::Catalog& catalog) {
  if (!flags.vendor_id) throw Error("--vendor-id is needed to describe a device by flags");
  runtime::LookupDevice d;
  d.vendor_id = *flags.vendor_id;
  d.origin = "flags";
  // The stored device that best fits the flags: same vendor (and device id when given), the
  // given driver version when any has it, else the newest driver.
  const db::DeviceRecord* fit = nullptr;
  for (const db::DeviceRecord& r : catalog.devices) {
    if (r.vendor_id != d.vendor_id) continue;
    if (flags.device_id && r.device_id != *flags.device_id) continue;
    if (flags.driver_id && r.driver_id != *flags.driver_id) continue;
    const auto rank = [&](const db::DeviceRecord& x) {
      return std::make_pair(flags.driver_version && x.driver_version == *flags.driver_version,
                            x.driver_version);
    };
    if (!fit || rank(r) > rank(*fit)) fit = &r;
  }
  if (fit) {
    d.device_id = flags.device_id.value_or(fit->device_id);
    const bool same_driver = !flags.driver_version || *flags.driver_version == fit->driver_version;
    d.driver_id = flags.driver_id.value_or(fit->driver_id);
    d.driver_version = flags.driver_version.value_or(fit->driver_version);
    const runtime::DeviceQuery stored = runtime::stored_device_query(*fit);
    d.type = stored.device_type;
    if (same_driver) d.pipeline_cache_uuid = stored.pipeline_cache_uuid;
    d.name = fit->name;
    d.origin = "flags, completed from database device \"" + fit->name + "\"";
  } else {
    d.device_id = flags.device_id.value_or(0);
    d.driver_id = flags.driver_id.value_or(0);
    d.driver_version = flags.driver_version.value_or(0);
    d.origin = "flags (no database device of this vendor" +
               std::string(flags.device_id ? " and device id" : "") + ")";
  }
  if (!flags.device_type.empty()) d.type = parse_device_type(flags.device_type);
  if (!flags.pipeline_cache_uuid.empty())
    d.pipeline_cache_uuid = parse_uuid(flags.pipeline_cache_uuid);
  return d;
}

db::Store open_for_reading(const std::string& path) {
  require_file(path, "database");
  return open_checked(path);
}

db::Store open_for_learning(const std::string& path) {
  require_file(path, "database");
  db::ImportChecks checks = kChecks;
  checks.spirv = nullptr;
  return db::open_for_reading(path, db::IntegrityCheck::quick_check, checks);
}

db::Catalog read_catalog(const std::string& path) {
  require_file(path, "database");
  return db::read_catalog(path, db::IntegrityCheck::quick_check, true, kChecks);
}

LookupResult lookup(const db::Catalog& catalog, const runtime::LookupDevice& device,
                    const runtime::ProblemQuery& problem, bool json) {
  std::string error;
  const auto snapshot = runtime::Snapshot::from_catalog(catalog, &error);
  if (!snapshot) throw Error("cannot build a lookup snapshot: " + error);
  const runtime::Selection s = snapshot->select(device.query(), problem);
  LookupResult r;
  r.ok = s.ok();
  // A database written by other means than import may hold a module that fails validation: the
  // answer is shown, and refused.
  std::string refused;
  if (s.ok() && !s.spirv.empty()) refused = kernels::spirv_validation_error(s.spirv);
  if (!refused.empty()) r.ok = false;
  if (json) {
    nlohmann::ordered_json j;
    j["device"] = {{"vendor_id", device.vendor_id},
                   {"device_id", device.device_id},
                   {"driver_id", device.driver_id},
                   {"driver_version", device.driver_version},
                   {"device_type", vk::device_type_name(device.type)},
                   {"pipeline_cache_uuid", vk::uuid_hex(device.pipeline_cache_uuid)},
                   {"name", device.name},
                   {"origin", device.origin}};
    j["problem"] = {{"op", problem.op}, {"dtype", problem.dtype},
                    {"m", problem.m},   {"n", problem.n},
                    {"k", problem.k},   {"group_size", problem.group_size}};
    j["selection"] = nlohmann::ordered_json::parse(runtime::describe_json(s));
    if (!refused.empty()) j["spirv_refused"] = refused;
    r.output = j.dump(2) + "\n";
  } else {
    r.output = "query: " + std::string(problem.op) + " " + std::string(problem.dtype) +
               " M=" + std::to_string(problem.m) + " N=" + std::to_string(problem.n) +
               " K=" + std::to_string(problem.k) + " gs=" + std::to_string(problem.group_size) +
               " on " + (device.name.empty() ? std::string("(unnamed device)") : device.name) +
               " [vendor " + hex4(device.vendor_id) + ", device " + hex4(device.device_id) +
               ", driver version " + std::to_string(device.driver_version) + ", " +
               std::string(vk::device_type_name(device.type)) + "; " + device.origin + "]\n" +
               runtime::describe(s);
    if (!refused.empty()) r.output += "  spirv refused: " + refused + "\n";
  }
  return r;
}

}  // namespace vktune::db::ops
