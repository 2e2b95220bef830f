// recorded_devices: SQLite's devices table, or a SAX pass over a document that stops once the
// top-level "devices" array has been read.
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

// Collects the "name" of each object of the top-level "devices" array, then stops the parse.
class DeviceNames : public nlohmann::json_sax<nlohmann::json> {
 public:
  std::vector<std::string> names;
  bool complete = false;  // the devices array was read to its end

  bool key(string_t& key) override {
    if (depth_ == 1) in_devices_ = key == "devices";
    name_next_ = in_devices_ && depth_ == 3 && key == "name";
    return true;
  }
  bool string(string_t& value) override {
    if (name_next_) names.push_back(value);
    name_next_ = false;
    return true;
  }
  bool start_object(std::size_t) override { return enter(); }
  bool start_array(std::size_t) override { return enter(); }
  bool end_object() override { return leave(); }
  bool end_array() override { return leave(); }
  bool null() override { return scalar(); }
  bool boolean(bool) override { return scalar(); }
  bool number_integer(number_integer_t) override { return scalar(); }
  bool number_unsigned(number_unsigned_t) override { return scalar(); }
  bool number_float(number_float_t, const string_t&) override { return scalar(); }
  bool binary(binary_t&) override { return scalar(); }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override {
    return false;
  }

 private:
  bool enter() {
    ++depth_;
    name_next_ = false;
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
    name_next_ = false;
    return true;
  }

  int depth_ = 0;
  bool in_devices_ = false;
  bool name_next_ = false;
};

}  // namespace

std::vector<std::string> recorded_devices(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ReportError("cannot read \"" + path + "\"");
  if (!is_json_document(path)) {
    try {
      const db::Store store = db::Store::open(path, db::OpenMode::read_only);
      std::vector<std::string> names;
      for (const db::DeviceRecord& d : store.devices()) names.push_back(d.name);
      return names;
    } catch (const db::Error& e) {
      throw ReportError(e.what());
    }
  }
  DeviceNames sax;
  nlohmann::json::sax_parse(in, &sax);
  if (!sax.complete) {
    throw ReportError("\"" + path + "\" is not an exported vktune database (no devices section)");
  }
  return sax.names;
}

std::optional<std::string> database_of_device(const std::string& folder,
                                              const std::string& device) {
  std::vector<std::string> candidates;
  for (const fs::directory_entry& entry : fs::directory_iterator(folder)) {
    const std::string name = entry.path().filename().string();
    const bool db = name.ends_with(".db");
    const bool document = name.ends_with(".json") && !name.ends_with(".winners.json");
    if (entry.is_regular_file() && (db || document)) candidates.push_back(entry.path().string());
  }
  std::sort(candidates.begin(), candidates.end());
  for (const std::string& path : candidates) {
    const std::vector<std::string> names = recorded_devices(path);
    if (std::find(names.begin(), names.end(), device) != names.end()) return path;
  }
  return std::nullopt;
}

}  // namespace vktune::report
