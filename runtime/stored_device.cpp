// A stored device as the runtime's fingerprint.
#include "runtime/stored_device.h"

#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

namespace vktune::runtime {
namespace {

std::array<uint8_t, 16> parse_uuid(const std::string& hex, const std::string& device) {
  const auto bad = [&] {
    return std::invalid_argument("device '" + device + "': pipeline_cache_uuid \"" + hex +
                                 "\" is not 32 hex digits");
  };
  auto nibble = [&](char ch) -> uint8_t {
    if (ch >= '0' && ch <= '9') return static_cast<uint8_t>(ch - '0');
    if (ch >= 'a' && ch <= 'f') return static_cast<uint8_t>(ch - 'a' + 10);
    if (ch >= 'A' && ch <= 'F') return static_cast<uint8_t>(ch - 'A' + 10);
    throw bad();
  };
  if (hex.size() != 32) throw bad();
  std::array<uint8_t, 16> out{};
  for (size_t i = 0; i < 16; ++i) {
    out[i] = static_cast<uint8_t>(nibble(hex[2 * i]) << 4 | nibble(hex[2 * i + 1]));
  }
  return out;
}

}  // namespace

DeviceQuery stored_device_query(const db::DeviceRecord& record) {
  DeviceQuery q;
  q.vendor_id = record.vendor_id;
  q.device_id = record.device_id;
  q.driver_id = record.driver_id;
  q.driver_version = record.driver_version;
  q.device_type = vk::parse_device_type(record.device_type).value_or(DeviceType::other);
  q.pipeline_cache_uuid = parse_uuid(record.pipeline_cache_uuid, record.name);
  q.name = record.name;
  return q;
}

uint32_t stored_compute_units(const db::DeviceRecord& record) noexcept {
  const auto properties = nlohmann::json::parse(record.properties_json, nullptr, false);
  if (!properties.is_object()) return 0;
  const auto limits = properties.find("limits");
  if (limits == properties.end() || !limits->is_object()) return 0;
  const auto units = limits->find("compute_units");
  if (units == limits->end() || !units->is_number_unsigned()) return 0;
  return units->get<uint32_t>();
}

ProblemQuery stored_problem_query(const db::Problem& p) {
  return {p.op, p.dtype, p.m, p.n, p.k, p.group_size, p.heads, p.kv_heads};
}

}  // namespace vktune::runtime
