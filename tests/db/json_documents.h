// Exported JSON documents for the import tests: the fixture store's export (version 2 and as
// version 1 wrote it), its cells by column name and the paths errors name them by.
#pragma once

#include <gtest/gtest.h>

#include <initializer_list>
#include <nlohmann/json.hpp>
#include <string>

#include "db/error.h"
#include "db/json_io.h"
#include "tests/db/fixtures.h"

namespace vktune::testing {

inline nlohmann::json exported() {
  db::Store s = db::Store::open_memory();
  populate(s);
  return db::export_json(s);
}

// The same store as version 1 wrote it.
inline nlohmann::json exported_v1() { return v1_document(exported()); }

// Position of column `name` in the header of `section`.
inline size_t column(const nlohmann::json& doc, const char* section,
                     const std::string& name) {
  const nlohmann::json& header = doc.at("columns").at(section);
  for (size_t c = 0; c < header.size(); ++c) {
    if (header[c] == name) return c;
  }
  ADD_FAILURE() << "no column " << name << " in " << section;
  return 0;
}
// One cell of a version 2 row, by column name.
inline nlohmann::json& cell(nlohmann::json& doc, const char* section, size_t row,
                            const std::string& name) {
  return doc[section][row][column(doc, section, name)];
}
// The path an error names for that cell: "measurements[0][6]".
inline std::string cell_path(const nlohmann::json& doc, const char* section, size_t row,
                             const std::string& name) {
  return std::string(section) + "[" + std::to_string(row) + "][" +
         std::to_string(column(doc, section, name)) + "]";
}

// Imports `doc` into a fresh store expecting an Error containing every needle.
inline void expect_rejected(const nlohmann::json& doc,
                            std::initializer_list<std::string> needles) {
  db::Store s = db::Store::open_memory();
  try {
    db::import_json(s, doc, "doc.json");
    FAIL() << "accepted " << doc.dump().substr(0, 200);
  } catch (const db::Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("doc.json"), std::string::npos) << what;
    for (const auto& n : needles) EXPECT_NE(what.find(n), std::string::npos) << what;
  }
  EXPECT_TRUE(s.devices().empty()) << "a rejected document must not be half-imported";
}

}  // namespace vktune::testing
