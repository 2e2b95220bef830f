// Which database of a folder was recorded on a given device: `vktune tune --train-db DIR` learns
// from the shipped database of the device it tunes (db/tuned/ holds one or more per device), or,
// for a device nobody tuned, from its kin's.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace vktune::db {

// A stored device as a folder scan needs it: its name, and what makes another device its kin.
struct RecordedDevice {
  std::string name;
  uint32_t vendor_id = 0;
  std::string device_type;  // as db::DeviceRecord: discrete, integrated, virtual, cpu or other

  friend bool operator==(const RecordedDevice&, const RecordedDevice&) = default;
};

// The devices of a .db file or an exported JSON document, either one zstd-compressed. A document
// is parsed only as far as its "devices" section: a shipped export runs to tens of MB, and a
// folder scan should not import each one to read a name. Throws db::Error naming the file if
// it is neither.
std::vector<RecordedDevice> recorded_devices(const std::string& path);

// The database to learn about one device from.
struct DeviceDatabase {
  std::string path;
  std::string device;  // the name recorded in it: the device's own, or its kin's
  bool kin = false;    // recorded on another device, none on this one
};

// The largest (by content, inflated) of the databases in the folder `path` (*.db files and
// exported *.json documents, with or without .zst, except *.winners.json: winners only, nothing
// to learn from), or the one file `path`, that hold
// `device` by name: the device's main database, since db/tuned keeps a device's full sweep beside
// smaller probes, and reading them all would multiply the model's training time. Where none
// does, the same for its kin, as the runtime's same_vendor_type match reads it: the same vendor
// and device type under another name; of several such devices, the one the first database in
// name order records. nullopt when neither is there. Throws db::Error on a file that is not a
// database.
std::optional<DeviceDatabase> database_of_device(const std::string& path,
                                                 const RecordedDevice& device);

}  // namespace vktune::db
