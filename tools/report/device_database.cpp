// recorded_devices: SQLite's devices table, or a SAX pass over a document that stops once the
// top-level "devices" array has been read; database_of_device: a scan of a folder with it.
#include "tools/report/device_database.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "db/error.h"
#include "db/store.h"
#include "tools/report/db_tools.h"
#include "tools/report/report.h"

namespace vktune::report {
namespace {

namespace fs = std::filesystem;

// Collects the name, vendor and type of each object of the top-level "devices" array, then stops
// the parse.
class DeviceFields : public nlohmann::json_sax<nlohmann::json> {
 public:
  std::vector<RecordedDevice> devices;
  bool complete = false;  // the devices array was read to its end

  bool key(string_t& key) override {
    if (depth_ == 1) in_devices_ = key == "devices";
    next_ = in_devices_ && depth_ == 3 ? field(key) : Field::none;
    return true;
  }
  bool string(string_t& value) override {
    if (next_ == Field::name) devices.back().name = value;
    if (next_ == Field::type) devices.back().device_type = value;
    return scalar();
  }
  bool number_unsigned(number_unsigned_t value) override {
    if (next_ == Field::vendor) devices.back().vendor_id = static_cast<uint32_t>(value);
    return scalar();
  }
  bool start_object(std::size_t) override {
    if (in_devices_ && depth_ == 2) devices.emplace_back();
    return enter();
  }
  bool start_array(std::size_t) override { return enter(); }
  bool end_object() override { return leave(); }
  bool end_array() override { return leave(); }
  bool null() override { return scalar(); }
  bool boolean(bool) override { return scalar(); }
  bool number_integer(number_integer_t) override { return scalar(); }
  bool number_float(number_float_t, const string_t&) override { return scalar(); }
  bool binary(binary_t&) override { return scalar(); }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override {
    return false;
  }

 private:
  enum class Field { none, name, vendor, type };
  static Field field(const string_t& key) {
    if (key == "name") return Field::name;
    if (key == "vendor_id") return Field::vendor;
    if (key == "device_type") return Field::type;
    return Field::none;
  }
  bool enter() {
    ++depth_;
    next_ = Field::none;
    return true;
  }
  bool leave() {
    --depth_;
    if (in_devices_ && depth_ == 1) {
      complete = true;
      return false;  // all that is wanted: stop here
    }
    return true;
  }
  bool scalar() {
    next_ = Field::none;
    return true;
  }

  int depth_ = 0;
  bool in_devices_ = false;
  Field next_ = Field::none;
};

// The databases a folder scan considers, in name order; a file is the one database considered.
std::vector<std::string> candidate_databases(const std::string& path) {
  if (!fs::is_directory(path)) return {path};
  std::vector<std::string> candidates;
  for (const fs::directory_entry& entry : fs::directory_iterator(path)) {
    const std::string name = entry.path().filename().string();
    const bool db = name.ends_with(".db");
    const bool document = name.ends_with(".json") && !name.ends_with(".winners.json");
    if (entry.is_regular_file() && (db || document)) candidates.push_back(entry.path().string());
  }
  std::sort(candidates.begin(), candidates.end());
  return candidates;
}

}  // namespace

std::vector<RecordedDevice> recorded_devices(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ReportError("cannot read \"" + path + "\"");
  if (!is_json_document(path)) {
    try {
      const db::Store store = db::Store::open(path, db::OpenMode::read_only);
      std::vector<RecordedDevice> devices;
      for (const db::DeviceRecord& d : store.devices()) {
        devices.push_back({d.name, d.vendor_id, d.device_type});
      }
      return devices;
    } catch (const db::Error& e) {
      throw ReportError(e.what());
    }
  }
  DeviceFields sax;
  nlohmann::json::sax_parse(in, &sax);
  if (!sax.complete) {
    throw ReportError("\"" + path + "\" is not an exported vktune database (no devices section)");
  }
  return sax.devices;
}

std::optional<DeviceDatabase> database_of_device(const std::string& path,
                                                 const RecordedDevice& device) {
  std::vector<std::pair<std::string, std::vector<RecordedDevice>>> scanned;
  for (const std::string& candidate : candidate_databases(path)) {
    scanned.emplace_back(candidate, recorded_devices(candidate));
  }
  // The largest database holding `name`, if any (the first in name order of equal sizes).
  const auto largest_holding = [&](const std::string& name) -> std::optional<std::string> {
    std::optional<std::string> found;
    uintmax_t found_size = 0;
    for (const auto& [candidate, devices] : scanned) {
      const bool holds = std::any_of(devices.begin(), devices.end(),
                                     [&](const RecordedDevice& d) { return d.name == name; });
      if (const uintmax_t size = fs::file_size(candidate); holds && (!found || size > found_size)) {
        found = candidate;
        found_size = size;
      }
    }
    return found;
  };
  if (std::optional<std::string> own = largest_holding(device.name)) {
    return DeviceDatabase{*own, device.name, false};
  }
  for (const auto& [candidate, devices] : scanned) {
    for (const RecordedDevice& d : devices) {
      if (d.vendor_id == device.vendor_id && d.device_type == device.device_type) {
        return DeviceDatabase{*largest_holding(d.name), d.name, true};
      }
    }
  }
  return std::nullopt;
}

}  // namespace vktune::report
