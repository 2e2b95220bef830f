// Opening a database safely: refuse foreign, truncated, corrupt or too-new files with a clear
// message before anything is written, then set pragmas and migrate forward.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "db/sqlite.h"

namespace vktune::db {

enum class OpenMode {
  read_write,  // creates the file if missing; migrates an older schema forward
  read_only,   // the file must exist at the current schema version; never writes
};

// Opens (or creates) the database at `path`. On an existing file: checks the SQLite header,
// runs PRAGMA quick_check, and refuses schema versions newer than kSchemaVersion and SQLite
// files that are not vktune databases. Sets WAL (read_write), a 5 s busy timeout and
// foreign keys. Throws Error naming the path and the problem; never modifies a refused file.
Connection open_database(const std::string& path, OpenMode mode);

// A fresh, private in-memory database at the current schema.
Connection open_memory();

// Opens a private in-memory copy of a database file image (e.g. bytes read from disk or a
// fuzzer input) with the same checks as open_database; `label` names it in errors.
Connection open_image(std::span<const uint8_t> bytes, const std::string& label);

}  // namespace vktune::db
