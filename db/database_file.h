// Reading a database in whatever form it was shipped: an SQLite file, a JSON export, or either
// one zstd-compressed. The form is told by the first bytes, never by the file's name, so a
// renamed or extension-less file reads the same.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "db/json_io.h"
#include "db/open.h"
#include "db/records.h"
#include "db/store.h"

namespace vktune::db {

enum class DatabaseForm {
  sqlite,  // starts with SQLite's 16-byte magic
  json,    // a '{' after any whitespace: a vktune JSON document (json_io.h)
};

// A database's content, inflated when it came compressed. Move-only: bytes() may view the
// caller's buffer (database_content) or the inflated copy this object owns.
class DatabaseContent {
 public:
  DatabaseContent(const DatabaseContent&) = delete;
  DatabaseContent& operator=(const DatabaseContent&) = delete;
  DatabaseContent(DatabaseContent&&) noexcept = default;
  DatabaseContent& operator=(DatabaseContent&&) noexcept = default;

  DatabaseForm form() const noexcept { return form_; }
  bool compressed() const noexcept { return compressed_; }
  std::span<const uint8_t> bytes() const noexcept { return bytes_; }
  std::string_view text() const noexcept {
    return {reinterpret_cast<const char*>(bytes_.data()), bytes_.size()};
  }

 private:
  friend DatabaseContent database_content(std::span<const uint8_t>, const std::string&);
  friend DatabaseContent database_content(std::vector<uint8_t>, const std::string&);
  DatabaseContent() = default;

  DatabaseForm form_ = DatabaseForm::json;
  bool compressed_ = false;
  std::vector<uint8_t> owned_;
  std::span<const uint8_t> bytes_;
};

// Tells what `bytes` hold and inflates a zstd frame (db/zstd_frame.h); `bytes` must outlive
// the result when it was not compressed. Throws Error naming `label` for anything else: not a
// database, a compressed file that is truncated, corrupt or a bomb, a frame inside a frame.
DatabaseContent database_content(std::span<const uint8_t> bytes, const std::string& label);
// The same for bytes the result takes over.
DatabaseContent database_content(std::vector<uint8_t> bytes, const std::string& label);

// What the existing non-regular, non-directory file at `path` is ("a FIFO", "a character
// device", "a block device", "a socket"), or nullptr: a regular file, a directory, or nothing
// there. One answer for every reader: such an input is read more than once and to its end.
const char* stream_kind(const std::string& path) noexcept;

// The whole of the file at `path`. Throws Error naming it when it is missing, a directory, or
// not a regular file (a FIFO or a device could block the read or never end; they are refused
// before anything opens them).
std::vector<uint8_t> read_regular_file(const std::string& path);

// Whether `path` is an uncompressed SQLite file, which is opened in place (SQLite reads only
// the pages it needs, sees a live writer's WAL, and opens read-only media immutable) rather
// than read whole. Throws Error as read_regular_file does.
bool is_sqlite_file(const std::string& path);

// A database for reading: an SQLite file opened in place read-only (with `integrity`); a JSON
// document or a compressed database in a private in-memory store labelled with `path`. Where
// `checks` are given, a JSON document's problems and SPIR-V go through them as import_json's do,
// and an SQLite database's through check_rows: both forms are refused alike.
Store open_for_reading(const std::string& path,
                       IntegrityCheck integrity = IntegrityCheck::quick_check,
                       const ImportChecks& checks = {});

// The catalog (what a lookup needs) of the database at `path`, in any form: a JSON document's
// straight from the text (catalog_from_json, `checks` made as there), an SQLite
// database's from its tables.
Catalog read_catalog(const std::string& path, IntegrityCheck integrity = IntegrityCheck::quick_check,
                     bool with_spirv = true, const ImportChecks& checks = {});
// The same for a database already in memory (`label` names it in errors).
Catalog read_catalog(const DatabaseContent& content, const std::string& label,
                     bool with_spirv = true, const ImportChecks& checks = {});

}  // namespace vktune::db
