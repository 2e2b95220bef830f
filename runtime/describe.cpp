// describe / describe_json: rendering only, no decisions.
#include "runtime/describe.h"

#include <cstdio>
#include <nlohmann/json.hpp>

namespace vktune::runtime {

std::string describe(const Selection& s) {
  std::string out;
  if (!s.ok()) {
    out += "no selection (" + std::string(to_string(s.status)) + "): " + std::string(s.error) + "\n";
    return out;
  }
  char buf[256];
  out += std::string(s.variant_key) + "\n";
  out += "  family " + std::string(s.family) + ", layout " + std::string(s.layout) +
         ", workgroup " + std::to_string(s.workgroup_size) + "\n";
  out += "  knobs " + std::string(s.knobs_json) + "\n";
  out += "  constraints " + std::string(s.constraints_json) + "\n";
  out += "  spirv " + (s.spirv.empty() ? std::string("not stored (compile from source)")
                                       : std::to_string(s.spirv.size()) + " bytes") + "\n";
  if (!s.specialization.empty()) {
    out += "  specialization";
    for (const SpecConstant& c : s.specialization) {
      out += " " + std::to_string(c.constant_id) + "=" + std::to_string(c.value);
    }
    out += "\n";
  }
  if (s.median_ns) {
    std::snprintf(buf, sizeof buf, "  measured %.0f ns on the matched problem\n", *s.median_ns);
    out += buf;
  }
  switch (s.device_match) {
    case DeviceMatch::exact: out += "  device: exact match, " + std::string(s.matched_device_name) + "\n"; break;
    case DeviceMatch::other_driver:
      out += "  device: same device tuned under another driver (version " +
             std::to_string(s.matched_driver_version) + "), " + std::string(s.matched_device_name) +
             " [flagged: re-tune on this driver]\n";
      break;
    case DeviceMatch::same_vendor_type:
      out += "  device: another device of the same vendor and type, " +
             std::string(s.matched_device_name) + "\n";
      break;
    case DeviceMatch::builtin: out += "  device: no tuned device, built-in routing\n"; break;
  }
  int at = std::snprintf(buf, sizeof buf, "M=%u N=%u K=%u gs=%u", s.matched_m, s.matched_n,
                         s.matched_k, s.matched_group_size);
  if (s.matched_heads != 0) {
    std::snprintf(buf + at, sizeof buf - at, " heads %u/%u", s.matched_heads, s.matched_kv_heads);
  }
  switch (s.shape_match) {
    case ShapeMatch::exact: out += std::string("  shape: exact, ") + buf + "\n"; break;
    case ShapeMatch::nearest: {
      char dist[64];
      std::snprintf(dist, sizeof dist, "%.3f", s.shape_distance);
      out += std::string("  shape: nearest tuned problem ") + buf + ", log-distance " + dist + "\n";
      break;
    }
    case ShapeMatch::ranked: {
      char dist[64];
      std::snprintf(dist, sizeof dist, "%.3f", s.shape_distance);
      out += std::string("  shape: ranked over the nearest tuned problems; measured on ") + buf +
             ", log-distance " + dist + "\n";
      break;
    }
    case ShapeMatch::builtin: out += "  shape: built-in routing (docs/variants.md)\n"; break;
  }
  return out;
}

std::string describe_json(const Selection& s) {
  nlohmann::ordered_json j;
  j["status"] = to_string(s.status);
  j["error"] = s.error;
  if (s.ok()) {
    j["family"] = s.family;
    j["variant_key"] = s.variant_key;
    j["knobs"] = nlohmann::ordered_json::parse(s.knobs_json, nullptr, false);
    j["constraints"] = nlohmann::ordered_json::parse(s.constraints_json, nullptr, false);
    j["layout"] = s.layout;
    j["workgroup_size"] = s.workgroup_size;
    j["spirv_bytes"] = s.spirv.size();
    j["specialization"] = nlohmann::ordered_json::array();
    for (const SpecConstant& c : s.specialization) {
      j["specialization"].push_back({c.constant_id, c.value});
    }
    j["median_ns"] = s.median_ns ? nlohmann::ordered_json(*s.median_ns) : nlohmann::ordered_json();
    j["device_match"] = to_string(s.device_match);
    j["shape_match"] = to_string(s.shape_match);
    j["shape_distance"] = s.shape_distance;
    j["matched_device"] = {{"name", s.matched_device_name}, {"driver_version", s.matched_driver_version}};
    j["matched_problem"] = {{"m", s.matched_m}, {"n", s.matched_n}, {"k", s.matched_k},
                            {"group_size", s.matched_group_size}};
    if (s.matched_heads != 0) {
      j["matched_problem"]["heads"] = s.matched_heads;
      j["matched_problem"]["kv_heads"] = s.matched_kv_heads;
    }
  }
  return j.dump();
}

}  // namespace vktune::runtime
