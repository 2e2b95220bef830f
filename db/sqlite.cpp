// RAII wrappers over sqlite3 / sqlite3_stmt; every SQLite error becomes a db::Error.
#include "db/sqlite.h"

#include <sqlite3.h>

#include <cstring>

#include "db/error.h"

namespace vktune::db {

void Connection::Closer::operator()(sqlite3* db) const noexcept {
  // close_v2 defers the close until outstanding statements finish, so a leaked statement
  // cannot turn into a failed close here.
  sqlite3_close_v2(db);
}

Connection Connection::open(const std::string& path, int flags, std::string label) {
  sqlite3* raw = nullptr;
  const int rc = sqlite3_open_v2(path.c_str(), &raw, flags | SQLITE_OPEN_EXRESCODE, nullptr);
  Connection c(raw, std::move(label));
  if (rc != SQLITE_OK) {
    if (raw == nullptr) throw Error(c.label_ + ": cannot open: out of memory");
    c.fail("cannot open");
  }
  // Defensive mode refuses writes that could corrupt the file (writable_schema etc.).
  sqlite3_db_config(raw, SQLITE_DBCONFIG_DEFENSIVE, 1, nullptr);
  sqlite3_extended_result_codes(raw, 1);
  return c;
}

Connection::Connection(Connection&& other) noexcept
    : db_(std::move(other.db_)), label_(std::move(other.label_)) {
  other.prepared_.clear();
}

Connection& Connection::operator=(Connection&& other) noexcept {
  prepared_.clear();
  other.prepared_.clear();
  db_ = std::move(other.db_);
  label_ = std::move(other.label_);
  return *this;
}

Connection::~Connection() = default;

Statement& Connection::prepared(const std::string& sql) const {
  auto [at, added] = prepared_.try_emplace(sql);
  if (added) {
    try {
      at->second = std::make_unique<Statement>(*this, sql);
    } catch (...) {
      prepared_.erase(at);
      throw;
    }
  }
  at->second->reset();
  return *at->second;
}

void Connection::exec(std::string_view sql) const {
  std::string text(sql);
  char* message = nullptr;
  if (sqlite3_exec(db_.get(), text.c_str(), nullptr, nullptr, &message) != SQLITE_OK) {
    std::string what = message ? message : sqlite3_errmsg(db_.get());
    sqlite3_free(message);
    throw Error(label_ + ": " + what);
  }
}

std::string Connection::query_text(std::string_view sql) const {
  Statement s(*this, sql);
  if (!s.step()) throw Error(label_ + ": query returned no row: " + std::string(sql));
  return s.text("");
}

int64_t Connection::query_int(std::string_view sql) const {
  Statement s(*this, sql);
  if (!s.step()) throw Error(label_ + ": query returned no row: " + std::string(sql));
  return s.integer("");
}

int64_t Connection::last_insert_rowid() const noexcept {
  return sqlite3_last_insert_rowid(db_.get());
}

int Connection::changes() const noexcept { return sqlite3_changes(db_.get()); }

void Connection::fail(std::string_view what) const {
  throw Error(label_ + ": " + std::string(what) + ": " + sqlite3_errmsg(db_.get()));
}

void Statement::Finalizer::operator()(sqlite3_stmt* stmt) const noexcept {
  sqlite3_finalize(stmt);
}

Statement::Statement(const Connection& connection, std::string_view sql)
    : connection_(&connection) {
  sqlite3_stmt* raw = nullptr;
  if (sqlite3_prepare_v2(connection.get(), sql.data(), static_cast<int>(sql.size()), &raw,
                         nullptr) != SQLITE_OK) {
    connection.fail("cannot prepare '" + std::string(sql.substr(0, 60)) + "'");
  }
  stmt_.reset(raw);
}

int Statement::parameter(const char* name) const {
  const int index = sqlite3_bind_parameter_index(stmt_.get(), name);
  if (index == 0) throw Error(connection_->label() + ": no SQL parameter " + name);
  return index;
}

int Statement::column(std::string_view name) const {
  // The empty name means "the only column" (pragmas, scalar queries).
  if (name.empty()) return 0;
  const int count = sqlite3_column_count(stmt_.get());
  for (int i = 0; i < count; ++i) {
    if (name == sqlite3_column_name(stmt_.get(), i)) return i;
  }
  throw Error(connection_->label() + ": no result column " + std::string(name));
}

Statement& Statement::bind(const char* name, int64_t value) {
  if (sqlite3_bind_int64(stmt_.get(), parameter(name), value) != SQLITE_OK)
    connection_->fail("bind");
  return *this;
}

Statement& Statement::bind(const char* name, double value) {
  if (sqlite3_bind_double(stmt_.get(), parameter(name), value) != SQLITE_OK)
    connection_->fail("bind");
  return *this;
}

Statement& Statement::bind(const char* name, std::string_view value) {
  if (sqlite3_bind_text64(stmt_.get(), parameter(name), value.data(), value.size(),
                          SQLITE_TRANSIENT, SQLITE_UTF8) != SQLITE_OK)
    connection_->fail("bind");
  return *this;
}

Statement& Statement::bind(const char* name, std::span<const uint8_t> blob) {
  // A zero-length blob must stay a blob, not NULL: zeroblob(0) keeps it non-null.
  const int rc = blob.empty()
                     ? sqlite3_bind_zeroblob(stmt_.get(), parameter(name), 0)
                     : sqlite3_bind_blob64(stmt_.get(), parameter(name), blob.data(),
                                           blob.size(), SQLITE_TRANSIENT);
  if (rc != SQLITE_OK) connection_->fail("bind");
  return *this;
}

Statement& Statement::bind_null(const char* name) {
  if (sqlite3_bind_null(stmt_.get(), parameter(name)) != SQLITE_OK) connection_->fail("bind");
  return *this;
}

bool Statement::step() {
  const int rc = sqlite3_step(stmt_.get());
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  connection_->fail("step");
}

void Statement::run() {
  while (step()) {
  }
}

void Statement::reset() noexcept { sqlite3_reset(stmt_.get()); }

bool Statement::is_null(std::string_view name) const {
  return sqlite3_column_type(stmt_.get(), column(name)) == SQLITE_NULL;
}

int64_t Statement::integer(std::string_view name) const {
  return sqlite3_column_int64(stmt_.get(), column(name));
}

double Statement::real(std::string_view name) const {
  return sqlite3_column_double(stmt_.get(), column(name));
}

std::string Statement::text(std::string_view name) const {
  const int i = column(name);
  const auto* p = sqlite3_column_text(stmt_.get(), i);
  const int n = sqlite3_column_bytes(stmt_.get(), i);
  return p ? std::string(reinterpret_cast<const char*>(p), static_cast<size_t>(n)) : std::string();
}

std::vector<uint8_t> Statement::blob(std::string_view name) const {
  const int i = column(name);
  const auto* p = static_cast<const uint8_t*>(sqlite3_column_blob(stmt_.get(), i));
  const int n = sqlite3_column_bytes(stmt_.get(), i);
  return p ? std::vector<uint8_t>(p, p + n) : std::vector<uint8_t>();
}

bool Statement::is_null(int column) const noexcept {
  return sqlite3_column_type(stmt_.get(), column) == SQLITE_NULL;
}

int64_t Statement::integer(int column) const noexcept {
  return sqlite3_column_int64(stmt_.get(), column);
}

double Statement::real(int column) const noexcept {
  return sqlite3_column_double(stmt_.get(), column);
}

std::string_view Statement::text_view(int column) const noexcept {
  const auto* p = sqlite3_column_text(stmt_.get(), column);
  const int n = sqlite3_column_bytes(stmt_.get(), column);
  return p ? std::string_view(reinterpret_cast<const char*>(p), static_cast<size_t>(n))
           : std::string_view();
}

std::optional<double> Statement::optional_real(std::string_view name) const {
  if (is_null(name)) return std::nullopt;
  return real(name);
}

std::optional<std::string> Statement::optional_text(std::string_view name) const {
  if (is_null(name)) return std::nullopt;
  return text(name);
}

Transaction::Transaction(const Connection& connection, Scope scope)
    : connection_(&connection), nested_(sqlite3_get_autocommit(connection.get()) == 0) {
  if (nested_ && scope == Scope::one_statement) {
    done_ = true;
    return;
  }
  connection.prepared(nested_ ? "SAVEPOINT vktune_nested" : "BEGIN IMMEDIATE").run();
}

Transaction::~Transaction() {
  if (done_) return;
  // Rollback can fail only if SQLite already rolled back (e.g. after SQLITE_FULL); there is
  // nothing useful to do about it in a destructor, so the status is dropped on purpose.
  sqlite3_exec(connection_->get(),
               nested_ ? "ROLLBACK TO vktune_nested; RELEASE vktune_nested" : "ROLLBACK",
               nullptr, nullptr, nullptr);
}

void Transaction::commit() {
  if (done_) return;
  connection_->prepared(nested_ ? "RELEASE vktune_nested" : "COMMIT").run();
  done_ = true;
}

}  // namespace vktune::db
