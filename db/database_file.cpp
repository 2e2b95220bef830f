// database_content, open_for_reading and read_catalog: every reader of a database goes through
// here, so that a compressed or renamed file reads wherever a plain one does.
#include "db/database_file.h"

#include <sys/stat.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>

#include "db/error.h"
#include "db/zstd_frame.h"

namespace vktune::db {
namespace {

bool is_json(std::span<const uint8_t> bytes) noexcept {
  size_t first = 0;
  while (first < bytes.size() && std::isspace(bytes[first])) ++first;
  return first < bytes.size() && bytes[first] == '{';
}

// Throws unless `path` names a regular file (following links).
void require_regular_file(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    throw Error(path + ": cannot open it: " + std::strerror(errno));
  }
  if (S_ISDIR(st.st_mode)) throw Error(path + ": is a directory, not a database");
  if (const char* kind = stream_kind(path)) {
    throw Error(path + ": is " + kind + ", not a regular file; give a database file");
  }
}

// An SQLite database's rows through the checks a document's pass as it is read (check_rows).
Store checked(Store store, const ImportChecks& checks) {
  if (checks.problem || checks.spirv) check_rows(store, checks);
  return store;
}

}  // namespace

const char* stream_kind(const std::string& path) noexcept {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return nullptr;
  if (S_ISFIFO(st.st_mode)) return "a FIFO";
  if (S_ISCHR(st.st_mode)) return "a character device";
  if (S_ISBLK(st.st_mode)) return "a block device";
  if (S_ISSOCK(st.st_mode)) return "a socket";
  return nullptr;
}

DatabaseContent database_content(std::span<const uint8_t> bytes, const std::string& label) {
  DatabaseContent c;
  c.bytes_ = bytes;
  if (is_zstd_frame(bytes)) {
    c.owned_ = inflate_zstd(bytes, label);
    c.bytes_ = c.owned_;
    c.compressed_ = true;
    if (is_zstd_frame(c.bytes_)) {
      throw Error(label + ": a zstd frame inside a zstd frame; decompress it once (zstd -d)");
    }
  }
  const std::string what = c.compressed_ ? "decompresses to " : "is ";
  if (has_sqlite_magic(c.bytes_)) {
    c.form_ = DatabaseForm::sqlite;
  } else if (is_json(c.bytes_)) {
    c.form_ = DatabaseForm::json;
  } else {
    throw Error(label + ": " + what + "neither an SQLite database nor a vktune JSON document (" +
                std::to_string(c.bytes_.size()) + " bytes)");
  }
  return c;
}

DatabaseContent database_content(std::vector<uint8_t> bytes, const std::string& label) {
  if (is_zstd_frame(bytes)) return database_content(std::span<const uint8_t>(bytes), label);
  DatabaseContent c = database_content(std::span<const uint8_t>(bytes), label);
  c.owned_ = std::move(bytes);  // a vector's move keeps its buffer, so bytes_ still views it
  return c;
}

std::vector<uint8_t> read_regular_file(const std::string& path) {
  require_regular_file(path);
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) throw Error(path + ": cannot open for reading");
  const std::streamoff size = in.tellg();
  if (size < 0) throw Error(path + ": cannot read its size");
  std::vector<uint8_t> bytes(static_cast<size_t>(size));
  in.seekg(0);
  if (!in.read(reinterpret_cast<char*>(bytes.data()), size)) throw Error(path + ": cannot read it");
  return bytes;
}

bool is_sqlite_file(const std::string& path) {
  require_regular_file(path);
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(path + ": cannot open for reading");
  uint8_t head[sizeof kSqliteMagic] = {};
  in.read(reinterpret_cast<char*>(head), sizeof head);
  return has_sqlite_magic({head, static_cast<size_t>(in.gcount())});
}

Store open_for_reading(const std::string& path, IntegrityCheck integrity,
                       const ImportChecks& checks) {
  if (is_sqlite_file(path)) return checked(Store::open(path, OpenMode::read_only, integrity), checks);
  const DatabaseContent content = database_content(read_regular_file(path), path);
  if (content.form() == DatabaseForm::sqlite) return checked(Store::open_image(content.bytes(), path), checks);
  Store store = Store::open_memory(path);
  import_json_text(store, content.text(), path, checks);
  return store;
}

Catalog read_catalog(const std::string& path, IntegrityCheck integrity, bool with_spirv,
                     const ImportChecks& checks) {
  if (is_sqlite_file(path)) {
    return Store::open(path, OpenMode::read_only, integrity).catalog(with_spirv);
  }
  return read_catalog(database_content(read_regular_file(path), path), path, with_spirv, checks);
}

Catalog read_catalog(const DatabaseContent& content, const std::string& label, bool with_spirv,
                     const ImportChecks& checks) {
  if (content.form() == DatabaseForm::json) return catalog_from_json(content.text(), label, checks);
  return Store::open_image(content.bytes(), label).catalog(with_spirv);
}

}  // namespace vktune::db
