// A thin RAII layer over the SQLite C API: an owned connection, prepared statements with
// named bound parameters only, and a transaction that rolls back unless committed.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

struct sqlite3;
struct sqlite3_stmt;

namespace vktune::db {

class Statement;

// Owns one sqlite3 handle. Move-only; not thread-safe (SQLite connections must not be shared
// between threads without external locking). Every failure throws Error naming label().
class Connection {
 public:
  // flags are SQLITE_OPEN_* bits. label is what error messages call the database.
  static Connection open(const std::string& path, int flags, std::string label);

  // A move leaves the statements prepared() kept behind: they point at the connection moved from.
  Connection(Connection&& other) noexcept;
  Connection& operator=(Connection&& other) noexcept;
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  sqlite3* get() const noexcept { return db_.get(); }
  const std::string& label() const noexcept { return label_; }

  // Runs SQL text without parameters (schema scripts, pragmas).
  void exec(std::string_view sql) const;
  // Runs a single-row, single-column pragma or query and returns the value as text.
  std::string query_text(std::string_view sql) const;
  int64_t query_int(std::string_view sql) const;
  int64_t last_insert_rowid() const noexcept;
  // `sql` prepared on the first call and kept, reset, for the next: for the statements that
  // write one row, which an import runs hundreds of thousands of times and would otherwise spend
  // half its time parsing. The caller finishes with it (runs it, or steps and resets it) before
  // asking for the same text again.
  Statement& prepared(const std::string& sql) const;
  int changes() const noexcept;

  // Throws Error("<label>: <what>: <sqlite message>").
  [[noreturn]] void fail(std::string_view what) const;

 private:
  struct Closer {
    void operator()(sqlite3* db) const noexcept;
  };
  Connection(sqlite3* db, std::string label) : db_(db), label_(std::move(label)) {}

  std::unique_ptr<sqlite3, Closer> db_;
  std::string label_;
  // After db_: finalized before the connection closes.
  mutable std::unordered_map<std::string, std::unique_ptr<Statement>> prepared_;
};

// One prepared statement. Parameters are bound by name (":name"); columns are read by name,
// so reordering a SELECT never silently shifts values. Borrows the connection, which must
// outlive it.
class Statement {
 public:
  Statement(const Connection& connection, std::string_view sql);
  Statement(Statement&&) noexcept = default;
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  Statement& bind(const char* name, int64_t value);
  Statement& bind(const char* name, double value);
  Statement& bind(const char* name, std::string_view value);
  Statement& bind(const char* name, std::span<const uint8_t> blob);
  Statement& bind_null(const char* name);
  template <class T>
  Statement& bind(const char* name, const std::optional<T>& value) {
    return value ? bind(name, *value) : bind_null(name);
  }
  Statement& bind(const char* name, const std::string& value) {
    return bind(name, std::string_view(value));
  }
  Statement& bind(const char* name, const char* value) {
    return bind(name, std::string_view(value));
  }
  Statement& bind(const char* name, uint32_t value) { return bind(name, int64_t{value}); }

  // Advances; true while a row is available. Throws on error.
  bool step();
  // Runs a statement that returns no rows.
  void run();
  // Resets for re-execution; bindings are kept.
  void reset() noexcept;

  bool is_null(std::string_view column) const;
  int64_t integer(std::string_view column) const;
  double real(std::string_view column) const;
  std::string text(std::string_view column) const;
  std::vector<uint8_t> blob(std::string_view column) const;
  std::optional<double> optional_real(std::string_view column) const;
  std::optional<std::string> optional_text(std::string_view column) const;

  // For loops over many rows: resolve each column's name once with column_index(), then read
  // it by that index (a by-name read costs a scan of the column names per call).
  int column_index(std::string_view name) const { return column(name); }
  bool is_null(int column) const noexcept;
  int64_t integer(int column) const noexcept;
  double real(int column) const noexcept;
  // Valid until the next step(), reset() or read of the same column as another type.
  std::string_view text_view(int column) const noexcept;

 private:
  struct Finalizer {
    void operator()(sqlite3_stmt* stmt) const noexcept;
  };
  int parameter(const char* name) const;
  int column(std::string_view name) const;

  const Connection* connection_;
  std::unique_ptr<sqlite3_stmt, Finalizer> stmt_;
};

// BEGIN IMMEDIATE on construction (takes the write lock up front, so two writers queue on the
// busy timeout instead of deadlocking on a lock upgrade); ROLLBACK in the destructor unless
// commit() ran. Inside an open transaction it nests as a SAVEPOINT, so a store call that
// makes its own transaction composes with a caller's batch. The destructor never throws.
class Transaction {
 public:
  // one_statement: for a store call that writes with one statement, atomic by itself; inside a
  // caller's transaction it opens no savepoint (two more statements a row, a tenth of an
  // import's time), alone it still takes the write lock up front.
  enum class Scope { statements, one_statement };
  explicit Transaction(const Connection& connection, Scope scope = Scope::statements);
  ~Transaction();
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  void commit();

 private:
  const Connection* connection_;
  bool nested_ = false;
  bool done_ = false;  // committed, rolled back, or a statement's inside a caller's: nothing to end
};

}  // namespace vktune::db
