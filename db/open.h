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
  // The file must exist; never writes, and creates no -wal or -shm beside it: immutable mode
  // when no writer's -wal is there (so a database in a read-only directory or on read-only
  // media opens), plain SQLITE_OPEN_READONLY otherwise. An older schema is read through a
  // private in-memory copy, migrated (the file stays as it was).
  read_only,
};

// How an existing file's integrity is checked on open, after the header checks.
enum class IntegrityCheck {
  // PRAGMA quick_check: every page of every b-tree, the freelist and the page accounting
  // (~12 ms for a 4 MB database). The default, and the only choice for writers.
  quick_check,
  // No up-front pass; PRAGMA cell_size_check is turned on instead, so SQLite verifies each
  // page and cell as it decodes them and a read of a damaged page throws Error("... database
  // disk image is malformed"). For a read_only caller that reads every row of every table it
  // uses right away (runtime::Snapshot::load): it sees all the damage that matters to it,
  // and misses only damage to pages it never reads (indexes, the freelist).
  on_read,
};

// The 16 bytes every SQLite file starts with (its magic string and a NUL).
inline constexpr char kSqliteMagic[] = "SQLite format 3";
// Whether `head` (a file's first bytes, or all of them) starts with kSqliteMagic.
bool has_sqlite_magic(std::span<const uint8_t> head) noexcept;

// Opens (or creates) the database at `path`. On an existing file: checks the SQLite header,
// runs PRAGMA quick_check (unless `check` says on_read), and refuses schema versions newer
// than kSchemaVersion and SQLite files that are not vktune databases. Sets WAL (read_write),
// a 10 min busy timeout (a writer waits out a long import) and foreign keys. Throws Error naming the path and the problem; never
// modifies a refused file. IntegrityCheck::on_read with read_write throws Error.
Connection open_database(const std::string& path, OpenMode mode,
                         IntegrityCheck check = IntegrityCheck::quick_check);

// A fresh, private in-memory database at the current schema; `label` names it in errors (the
// file a JSON document was loaded from, say).
Connection open_memory(const std::string& label = ":memory:");

// Opens a private in-memory copy of a database file image (e.g. bytes read from disk or a
// fuzzer input) with the same checks as open_database; `label` names it in errors.
Connection open_image(std::span<const uint8_t> bytes, const std::string& label);

}  // namespace vktune::db
