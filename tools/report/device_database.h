// Which database of a folder was recorded on a given device: `vktune tune --train-db DIR` learns
// from the shipped database of the device it tunes (db/tuned/ holds one per device).
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace vktune::report {

// Names of the devices in a .db file or an exported JSON document. A document is parsed only as
// far as its "devices" section: a shipped export runs to tens of MB, and a folder scan should
// not import each one to read a name. Throws ReportError naming the file if it is neither.
std::vector<std::string> recorded_devices(const std::string& path);

// The first database in `folder`, in name order, that holds `device`: *.db files and exported
// *.json documents, except *.winners.json (winners only, nothing to learn from). nullopt when
// none does.
std::optional<std::string> database_of_device(const std::string& folder, const std::string& device);

}  // namespace vktune::report
