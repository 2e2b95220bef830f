// recorded_devices: SQLite's devices table, or a SAX pass over a document that stops once the
// top-level "devices" array has been read; database_of_device: a scan of a folder with it.
#include "db/device_database.h"

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "db/database_file.h"
#include "db/error.h"
#include "db/store.h"

namespace vktune::db {
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
// A name may end in .zst too: the scan reads content, but the name keeps winners files out.
std::vector<std::string> candidate_databases(const std::string& path) {
  if (!fs::is_directory(path)) return {path};
  std::vector<std::string> candidates;
  for (const fs::directory_entry& entry : fs::directory_iterator(path)) {
    std::string name = entry.path().filename().string();
    if (name.ends_with(".zst")) name.resize(name.size() - 4);
    const bool db = name.ends_with(".db");
    const bool document = name.ends_with(".json") && !name.ends_with(".winners.json");
    if (entry.is_regular_file() && (db || document)) candidates.push_back(entry.path().string());
  }
  std::sort(candidates.begin(), candidates.end());
  return candidates;
}

// A database's devices and the size of its content (inflated, when it is compressed: the
// size that says which of a device's databases is its main one).
struct Scanned {
  std::string path;
  uintmax_t content_bytes = 0;
  std::vector<RecordedDevice> devices;
};

std::vector<RecordedDevice> devices_of(const Store& store) {
  std::vector<RecordedDevice> devices;
  for (const DeviceRecord& d : store.devices()) devices.push_back({d.name, d.vendor_id, d.device_type});
  return devices;
}

Scanned scan(const std::string& path) {
  if (is_sqlite_file(path)) {
    return {path, fs::file_size(path), devices_of(Store::open(path, OpenMode::read_only))};
  }
  const DatabaseContent content = database_content(read_regular_file(path), path);
  Scanned scanned{path, content.bytes().size(), {}};
  if (content.form() == DatabaseForm::sqlite) {
    scanned.devices = devices_of(Store::open_image(content.bytes(), path));
    return scanned;
  }
  DeviceFields sax;
  nlohmann::json::sax_parse(content.text(), &sax);
  if (!sax.complete) {
    throw Error("\"" + path + "\" is not an exported vktune database (no devices section)");
  }
  scanned.devices = std::move(sax.devices);
  return scanned;
}

}  // namespace

std::vector<RecordedDevice> recorded_devices(const std::string& path) { return scan(path).devices; }

std::optional<DeviceDatabase> database_of_device(const std::string& path,
                                                 const RecordedDevice& device) {
  std::vector<Scanned> scanned;
  for (const std::string& candidate : candidate_databases(path)) scanned.push_back(scan(candidate));
  // The largest database holding `name`, if any (the first in name order of equal sizes).
  const auto largest_holding = [&](const std::string& name) -> std::optional<std::string> {
    std::optional<std::string> found;
    uintmax_t found_size = 0;
    for (const Scanned& s : scanned) {
      const bool holds = std::any_of(s.devices.begin(), s.devices.end(),
                                     [&](const RecordedDevice& d) { return d.name == name; });
      if (holds && (!found || s.content_bytes > found_size)) {
        found = s.path;
        found_size = s.content_bytes;
      }
    }
    return found;
  };
  if (std::optional<std::string> own = largest_holding(device.name)) {
    return DeviceDatabase{*own, device.name, false};
  }
  for (const Scanned& s : scanned) {
    for (const RecordedDevice& d : s.devices) {
      if (d.vendor_id == device.vendor_id && d.device_type == device.device_type) {
        return DeviceDatabase{*largest_holding(d.name), d.name, true};
      }
    }
  }
  return std::nullopt;
}

}  // namespace vktune::db
