// Strict reading of the JSON document (db/json_io.h): a validation context that names the path
// of every value it reads, and version 2's row arrays. Internal to db/'s JSON import.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "db/error.h"
#include "db/json_columns.h"

namespace vktune::db::json_read {

using nlohmann::json;
using json_columns::Columns;
using json_columns::column_names;

// `v` as an unsigned 32-bit integer, if it is one. Parsed non-negative literals are
// "unsigned", values built in C++ may be "integer".
inline std::optional<uint32_t> as_u32(const json& v) {
  const bool in_range = v.is_number_unsigned()
                            ? v.get<uint64_t>() <= std::numeric_limits<uint32_t>::max()
                            : v.is_number_integer() && v.get<int64_t>() >= 0 &&
                                  v.get<int64_t>() <= std::numeric_limits<uint32_t>::max();
  if (!in_range) return std::nullopt;
  return static_cast<uint32_t>(v.get<int64_t>());
}

// Validation context: the document's label and the path of the value being read.
struct Reader {
  const std::string& label;

  [[noreturn]] void fail(const std::string& path, const std::string& what) const {
    throw Error(label + ": " + path + ": " + what);
  }
  const json& field(const json& obj, const std::string& path, const char* name) const {
    if (!obj.is_object()) fail(path, std::string("expected an object, got ") + obj.type_name());
    const auto it = obj.find(name);
    if (it == obj.end()) fail(path + "." + name, "missing");
    return *it;
  }
  bool present(const json& obj, const char* name) const {
    const auto it = obj.find(name);
    return it != obj.end() && !it->is_null();
  }
  std::string str(const json& obj, const std::string& path, const char* name) const {
    const json& v = field(obj, path, name);
    if (!v.is_string()) fail(path + "." + name, std::string("expected a string, got ") + v.type_name());
    return v.get<std::string>();
  }
  uint32_t u32(const json& obj, const std::string& path, const char* name) const {
    return u32_value(field(obj, path, name), path + "." + name);
  }
  uint32_t u32_value(const json& v, const std::string& path) const {
    const auto value = as_u32(v);
    if (!value) {
      fail(path, std::string("expected an unsigned 32-bit integer, got ") +
                     (v.is_number() ? v.dump() : v.type_name()));
    }
    return *value;
  }
  bool boolean(const json& obj, const std::string& path, const char* name) const {
    const json& v = field(obj, path, name);
    if (!v.is_boolean())
      fail(path + "." + name, std::string("expected true or false, got ") + v.type_name());
    return v.get<bool>();
  }
  double num(const json& obj, const std::string& path, const char* name) const {
    const json& v = field(obj, path, name);
    if (!v.is_number()) fail(path + "." + name, std::string("expected a number, got ") + v.type_name());
    return v.get<double>();
  }
  // Nullable numbers may be absent or null.
  std::optional<double> opt_num(const json& obj, const std::string& path, const char* name) const {
    if (!present(obj, name)) return std::nullopt;
    return num(obj, path, name);
  }
  std::optional<std::string> opt_str(const json& obj, const std::string& path, const char* name) const {
    if (!present(obj, name)) return std::nullopt;
    return str(obj, path, name);
  }
  const json& array(const json& obj, const char* name) const {
    const json& v = field(obj, "document", name);
    if (!v.is_array()) fail(name, std::string("expected an array, got ") + v.type_name());
    return v;
  }
  // JSON text stored verbatim (knobs keep their declared order); must itself parse.
  std::string json_text(const json& obj, const std::string& path, const char* name) const {
    std::string text = str(obj, path, name);
    if (!json::accept(text)) fail(path + "." + name, "is not valid JSON text");
    return text;
  }
};

inline std::string at(const std::string& section, size_t i) {
  return section + "[" + std::to_string(i) + "]";
}

// The header of `section` must name exactly one of the column sets `accepted` (those this version
// reads); returns which.
inline size_t check_columns(const Reader& r, const json& doc, const char* section,
                            std::initializer_list<Columns> accepted) {
  const json& header = r.field(r.field(doc, "document", "columns"), "columns", section);
  std::string expected;
  size_t i = 0;
  for (const Columns columns : accepted) {
    const json names = column_names(columns);
    if (header == names) return i;
    expected += (i++ == 0 ? "" : " or ") + names.dump();
  }
  r.fail(std::string("columns.") + section, "expected " + expected + ", got " + header.dump());
}

// One version 2 row: a JSON array of its section's columns. Errors name the cell and its
// column: "measurements[3][6]: median_ns: expected a number, got string".
class Row {
 public:
  Row(const Reader& r, const json& cells, std::string path, Columns columns)
      : r_(r), cells_(cells), path_(std::move(path)), columns_(columns) {
    if (!cells.is_array() || cells.size() != columns.size()) {
      r.fail(path_, "expected an array of " + std::to_string(columns.size()) + " values (" +
                        column_names(columns).dump() + "), got " +
                        (cells.is_array() ? "an array of " + std::to_string(cells.size())
                                          : std::string(cells.type_name())));
    }
  }

  [[noreturn]] void fail(size_t c, const std::string& what) const {
    r_.fail(at(path_, c), std::string(columns_[c]) + ": " + what);
  }
  // An index into a section of `count` entries, named after the column ("problem" indexes
  // "problems").
  size_t index(size_t c, size_t count) const {
    const json& v = cells_[c];
    const std::string name = columns_[c];
    if (!v.is_number_integer() || (!v.is_number_unsigned() && v.get<int64_t>() < 0)) {
      fail(c, "expected an index into '" + name + "s', got " +
                  (v.is_number() ? v.dump() : v.type_name()));
    }
    const uint64_t i = v.get<uint64_t>();
    if (i >= count) {
      r_.fail(at(path_, c), name + " index " + std::to_string(i) + " out of range (" +
                                std::to_string(count) + " " + name + (count == 1 ? ")" : "s)"));
    }
    return static_cast<size_t>(i);
  }
  std::string str(size_t c) const {
    const json& v = cells_[c];
    if (!v.is_string()) fail(c, std::string("expected a string, got ") + v.type_name());
    return v.get<std::string>();
  }
  uint32_t u32(size_t c) const { return u32_value(cells_[c], c); }
  bool boolean(size_t c) const {
    const json& v = cells_[c];
    if (!v.is_boolean()) fail(c, std::string("expected true or false, got ") + v.type_name());
    return v.get<bool>();
  }
  double num(size_t c) const {
    const json& v = cells_[c];
    if (!v.is_number()) fail(c, std::string("expected a number, got ") + v.type_name());
    return v.get<double>();
  }
  // Absent optionals are null.
  std::optional<double> opt_num(size_t c) const {
    if (cells_[c].is_null()) return std::nullopt;
    return num(c);
  }
  std::vector<uint32_t> u32_array(size_t c) const {
    const json& v = cells_[c];
    if (!v.is_array()) fail(c, std::string("expected an array, got ") + v.type_name());
    std::vector<uint32_t> out;
    for (size_t i = 0; i < v.size(); ++i) out.push_back(u32_value(v[i], c, i));
    return out;
  }

 private:
  // Cell c, or element `element` of the array in cell c.
  uint32_t u32_value(const json& v, size_t c, std::optional<size_t> element = {}) const {
    const auto value = as_u32(v);
    if (!value) {
      const std::string what = std::string(columns_[c]) +
                               ": expected an unsigned 32-bit integer, got " +
                               (v.is_number() ? v.dump() : v.type_name());
      r_.fail(element ? at(at(path_, c), *element) : at(path_, c), what);
    }
    return *value;
  }

  const Reader& r_;
  const json& cells_;
  std::string path_;
  Columns columns_;
};

}  // namespace vktune::db::json_read
