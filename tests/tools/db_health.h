// What the reliability tests ask of a database after a kill: SQLite's integrity check, its runs,
// and which measurements it holds, read straight through SQLite so the verdict does not depend
// on the store code under test.
#pragma once

#include <sqlite3.h>

#include <array>
#include <cstdint>
#include <filesystem>
#include <set>
#include <string>

namespace vktune::testing {

struct DbHealth {
  bool exists = false;
  std::string integrity;                  // PRAGMA integrity_check's first line: "ok" when sound
  size_t runs = 0;
  size_t count = 0;                       // measurements
  std::set<std::array<int64_t, 5>> rows;  // each measurement's id, run, device, problem, kernel
  size_t duplicates = 0;                  // measurements repeating another's key (all but id)
};

// Opens `path` for writing (so a killed writer's WAL is recovered, as the next vktune would) and
// reads its health; a missing file or one without tables yet reads as empty.
inline DbHealth db_health(const std::string& path) {
  DbHealth h;
  h.exists = std::filesystem::exists(path);
  sqlite3* db = nullptr;
  if (!h.exists || sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE, nullptr) != SQLITE_OK) {
    sqlite3_close(db);
    return h;
  }
  sqlite3_busy_timeout(db, 30000);  // a live writer may hold the lock for a transaction
  const auto each_row = [db](const char* sql, auto on_row) {
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v2(db, sql, -1, &stmt, nullptr) == SQLITE_OK) {
      while (sqlite3_step(stmt) == SQLITE_ROW) on_row(stmt);
    }
    sqlite3_finalize(stmt);
  };
  each_row("PRAGMA integrity_check", [&](sqlite3_stmt* s) {
    if (h.integrity.empty()) h.integrity = reinterpret_cast<const char*>(sqlite3_column_text(s, 0));
  });
  each_row("SELECT count(*) FROM runs", [&](sqlite3_stmt* s) { h.runs = sqlite3_column_int64(s, 0); });
  std::set<std::array<int64_t, 4>> keys;
  each_row("SELECT id, run_id, device_id, problem_id, kernel_id FROM measurements",
           [&](sqlite3_stmt* s) {
             std::array<int64_t, 5> row;
             for (int i = 0; i < 5; ++i) row[i] = sqlite3_column_int64(s, i);
             h.rows.insert(row);
             keys.insert({row[1], row[2], row[3], row[4]});
           });
  h.count = h.rows.size();
  h.duplicates = h.count - keys.size();
  sqlite3_close(db);
  return h;
}

// How many of `before`'s rows `after` lacks.
inline size_t lost_rows(const DbHealth& before, const DbHealth& after) {
  size_t lost = 0;
  for (const auto& row : before.rows) lost += after.rows.count(row) == 0;
  return lost;
}

}  // namespace vktune::testing
