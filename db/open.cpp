// open_database / open_image: the refusal rules live here so the store never sees a bad file.
#include "db/open.h"

#include <sqlite3.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>

#include "db/error.h"
#include "db/schema.h"

namespace vktune::db {
namespace {

constexpr size_t kHeaderSize = 100;

uint32_t big_endian(const uint8_t* p, int bytes) {
  uint32_t v = 0;
  for (int i = 0; i < bytes; ++i) v = (v << 8) | p[i];
  return v;
}

// Rejects what SQLite would either misreport or happily overwrite: short files, files of
// another format, and files shorter than their own header says (truncated copies). The size
// check is skipped when a WAL file may hold the newest pages.
void check_header(std::span<const uint8_t> head, uint64_t file_size, bool may_have_wal,
                  const std::string& label) {
  if (file_size < kHeaderSize) {
    if (has_sqlite_magic(head)) {
      throw Error(label + ": truncated SQLite database: " + std::to_string(file_size) +
                  " bytes, shorter than the 100-byte header");
    }
    throw Error(label + ": not an SQLite database (" + std::to_string(file_size) +
                " bytes, no 'SQLite format 3' header)");
  }
  if (!has_sqlite_magic(head)) {
    throw Error(label + ": not an SQLite database (no 'SQLite format 3' header)");
  }
  uint32_t page_size = big_endian(head.data() + 16, 2);
  if (page_size == 1) page_size = 65536;
  const uint32_t pages = big_endian(head.data() + 28, 4);
  // The in-header page count is only valid when the version-valid-for number matches the
  // change counter (SQLite file format, section 1.3.8).
  const bool count_valid = big_endian(head.data() + 92, 4) == big_endian(head.data() + 24, 4);
  if (page_size < 512 || (page_size & (page_size - 1)) != 0) {
    throw Error(label + ": corrupt SQLite header (page size " + std::to_string(page_size) + ")");
  }
  const uint64_t expected = uint64_t{page_size} * pages;
  if (!may_have_wal && count_valid && pages > 0 && file_size < expected) {
    throw Error(label + ": truncated SQLite database: header says " + std::to_string(expected) +
                " bytes, file has " + std::to_string(file_size));
  }
}

// Whether the last failure on `c` was the disk filling up: SQLITE_FULL, or an I/O error whose
// system call failed with ENOSPC (growing the -shm of a WAL database on a full disk fails as
// "disk I/O error", not as SQLITE_FULL).
bool disk_full(const Connection& c) {
  return (sqlite3_errcode(c.get()) & 0xff) == SQLITE_FULL || sqlite3_system_errno(c.get()) == ENOSPC;
}

void check_integrity(const Connection& c) {
  try {
    Statement check(c, "PRAGMA quick_check");
    if (!check.step()) throw Error(c.label() + ": database is corrupt (quick_check gave nothing)");
    const std::string first = check.text("");
    if (first != "ok") throw Error(c.label() + ": database is corrupt (quick_check: " + first + ")");
  } catch (const Error& e) {
    const std::string what = e.what();
    if (what.find("corrupt") != std::string::npos) throw;
    if (disk_full(c)) throw Error(what + " (the disk is full: free some space and run again)");
    throw Error(what + " (corrupt or not an SQLite database)");
  }
}

// Refuses databases this build must not touch; returns their schema version.
int check_version(const Connection& c) {
  // The version and the object count come from one statement, so one snapshot: read apart, a
  // writer creating the schema in between would make a new vktune file look foreign.
  Statement read(c, "SELECT (SELECT user_version FROM pragma_user_version) AS version, "
                    "(SELECT count(*) FROM sqlite_schema) AS objects");
  if (!read.step()) throw Error(c.label() + ": cannot read the schema version");
  const int version = static_cast<int>(read.integer("version"));
  const int64_t objects = read.integer("objects");
  if (version > kSchemaVersion) {
    throw Error(c.label() + ": schema version " + std::to_string(version) +
                " is newer than this vktune supports (" + std::to_string(kSchemaVersion) +
                "); use a newer vktune");
  }
  if (version < 0) throw Error(c.label() + ": invalid schema version " + std::to_string(version));
  if (version == 0) {
    if (objects > 0) {
      throw Error(c.label() + ": an SQLite database but not a vktune one (user_version 0, " +
                  std::to_string(objects) + " schema objects); refusing to modify it");
    }
  }
  return version;
}

// `path` as an SQLite URI filename (file:...), with the characters URIs reserve escaped.
std::string file_uri(const std::string& path) {
  std::string uri = "file:";
  for (const char ch : path) {
    if (ch == '%' || ch == '?' || ch == '#') {
      char escaped[4];
      std::snprintf(escaped, sizeof escaped, "%%%02X", static_cast<unsigned char>(ch));
      uri += escaped;
    } else {
      uri += ch;
    }
  }
  return uri;
}

// Opens for reading only, creating nothing beside the file. With a -wal beside it a writer is
// active (or was killed): its newest pages live there, so SQLite reads it through the shared
// -shm as usual, both already present. Without one, every committed page is in the file
// itself, and immutable mode reads it with no lock and no -wal/-shm: exactly what a database
// installed in a read-only directory or on read-only media needs, where WAL could create
// neither. Its one cost: a writer that starts on the file while such a read is under way and
// checkpoints into it may make that read fail as corrupt (the file itself is never harmed;
// running the command again reads it whole).
Connection open_read_only(const std::string& path, bool writer_active) {
  const int flags = SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_URI;
  return Connection::open(file_uri(path) + (writer_active ? "" : "?immutable=1"), flags, path);
}

Connection open_for_write(const std::string& path) {
  try {
    return Connection::open(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                            path);
  } catch (const Error& e) {
    throw Error(std::string(e.what()) + " (check that its directory exists and is writable)");
  }
}

// How long a writer waits for another's transaction. Long: an import or merge of a large
// database holds the write lock for as long as it takes, and a tune behind it should wait, not
// fail (DESIGN.md: concurrent writers serialise, never fail). A lock never outlives its process,
// so only a transaction really running holds a writer this long.
constexpr int kBusyTimeoutMs = 10 * 60 * 1000;

// Switches a database to WAL. The switch needs the file to itself, and SQLite answers "database
// is locked" at once, without its busy handler, while another connection opening the same new
// file holds it: so the switch is retried for as long as the busy timeout would wait.
void use_wal(const Connection& c) {
  constexpr auto kStep = std::chrono::milliseconds(5);
  for (int waited = 0;; waited += static_cast<int>(kStep.count())) {
    Statement mode(c, "PRAGMA journal_mode = WAL");
    try {
      mode.step();
      return;
    } catch (const Error&) {
      if ((sqlite3_errcode(c.get()) & 0xff) != SQLITE_BUSY || waited >= kBusyTimeoutMs) throw;
    }
    std::this_thread::sleep_for(kStep);
  }
}

void configure(const Connection& c) {
  sqlite3_busy_timeout(c.get(), kBusyTimeoutMs);
  c.exec("PRAGMA foreign_keys = ON");
}

// A database an older vktune wrote, read without writing to it: a private in-memory copy
// (SQLite's online backup, which reads through a writer's -wal as any reader does), migrated.
// Merging or loading a database tuned by an earlier build then needs no upgrade step first.
Connection migrated_copy(const Connection& file) {
  Connection copy = Connection::open(":memory:", SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE,
                                     file.label());
  sqlite3_backup* backup = sqlite3_backup_init(copy.get(), "main", file.get(), "main");
  if (backup == nullptr) copy.fail("cannot copy to migrate it");
  const int step = sqlite3_backup_step(backup, -1);
  sqlite3_backup_finish(backup);
  if (step != SQLITE_DONE) file.fail("cannot copy to migrate it");
  configure(copy);
  migrate(copy);
  copy.exec("PRAGMA query_only = ON");  // read-only as the open was asked for
  return copy;
}

}  // namespace

bool has_sqlite_magic(std::span<const uint8_t> head) noexcept {
  return head.size() >= sizeof kSqliteMagic &&
         std::memcmp(head.data(), kSqliteMagic, sizeof kSqliteMagic) == 0;
}

Connection open_database(const std::string& path, OpenMode mode, IntegrityCheck check) {
  namespace fs = std::filesystem;
  if (check == IntegrityCheck::on_read && mode != OpenMode::read_only) {
    throw Error(path + ": IntegrityCheck::on_read is for read-only opens only");
  }
  std::error_code ec;
  const bool exists = fs::exists(path, ec);
  if (mode == OpenMode::read_only && !exists) throw Error(path + ": no such database file");
  uint64_t size = 0;
  if (exists) {
    if (!fs::is_regular_file(path, ec)) throw Error(path + ": not a regular file");
    size = fs::file_size(path, ec);
    if (ec) throw Error(path + ": cannot read size: " + ec.message());
  }
  const bool existing = exists && size > 0;
  const bool writer_active = fs::exists(path + "-wal", ec);
  if (existing) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw Error(path + ": cannot open for reading");
    uint8_t head[kHeaderSize] = {};
    in.read(reinterpret_cast<char*>(head), kHeaderSize);
    check_header(std::span(head, static_cast<size_t>(in.gcount())), size, writer_active, path);
  }
  Connection c = mode == OpenMode::read_only
                     ? open_read_only(path, writer_active)
                     : open_for_write(path);
  configure(c);
  if (existing) {
    if (check == IntegrityCheck::quick_check) {
      check_integrity(c);
    } else {
      c.exec("PRAGMA cell_size_check = ON");
    }
  }
  const int version = check_version(c);
  if (mode == OpenMode::read_write) {
    use_wal(c);
    migrate(c);
  } else if (version == 0) {
    // An empty file: nothing to read, and a read-only open must not create the schema.
    throw Error(c.label() + ": no vktune schema yet (an empty database); a read-only open "
                "cannot create one");
  } else if (version != kSchemaVersion) {
    return migrated_copy(c);
  }
  return c;
}

Connection open_memory(const std::string& label) {
  Connection c = Connection::open(":memory:", SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, label);
  configure(c);
  migrate(c);
  return c;
}

Connection open_image(std::span<const uint8_t> bytes, const std::string& label) {
  check_header(bytes.first(std::min(bytes.size(), kHeaderSize)), bytes.size(), false, label);
  Connection c = Connection::open(":memory:", SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, label);
  auto* copy = static_cast<uint8_t*>(sqlite3_malloc64(bytes.size()));
  if (copy == nullptr) throw Error(label + ": out of memory");
  std::memcpy(copy, bytes.data(), bytes.size());
  // A database written in WAL mode says so in its header (read and write versions 2), and
  // SQLite cannot open an image that way (no -wal file beside it). A file closed cleanly holds
  // all its pages itself, so the copy is read as a rollback-journal database (versions 1).
  if (copy[18] == 2 && copy[19] == 2) copy[18] = copy[19] = 1;
  // FREEONCLOSE hands the copy to SQLite, even when deserialize fails.
  if (sqlite3_deserialize(c.get(), "main", copy, static_cast<sqlite3_int64>(bytes.size()),
                          static_cast<sqlite3_int64>(bytes.size()),
                          SQLITE_DESERIALIZE_FREEONCLOSE | SQLITE_DESERIALIZE_RESIZEABLE) !=
      SQLITE_OK) {
    c.fail("cannot load image");
  }
  configure(c);
  check_integrity(c);
  check_version(c);
  migrate(c);
  return c;
}

}  // namespace vktune::db
