#include "tuning-db/sqlite.h"

#include <sqlite3.h>

#include <fmt/format.h>

namespace nee::db {

Connection::Connection(const std::string& path) : path_(path) {
  const int rc = sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr);
  if (rc != SQLITE_OK) {
    // sqlite3_open_v2 allocates a handle even on failure; it carries the message.
    const std::string message = db_ ? sqlite3_errmsg(db_) : sqlite3_errstr(rc);
    sqlite3_close(db_);
    db_ = nullptr;
    throw SqliteError(fmt::format("tuning database {}: cannot open: {}", path, message), rc);
  }
  sqlite3_extended_result_codes(db_, 0);
}

Connection::~Connection() { sqlite3_close(db_); }

void Connection::exec(const std::string& sql) {
  if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, nullptr) != SQLITE_OK) fail(sql);
}

int64_t Connection::query_int(const std::string& sql) {
  Statement s(*this, sql.c_str());
  if (!s.step()) throw Error(fmt::format("tuning database {}: '{}' returned no row", path_, sql));
  return s.column_int(0);
}

int64_t Connection::last_insert_rowid() const { return sqlite3_last_insert_rowid(db_); }

int64_t Connection::changes() const { return sqlite3_changes(db_); }

void Connection::fail(const std::string& doing) const {
  throw SqliteError(fmt::format("tuning database {}: {}: {}", path_, doing, sqlite3_errmsg(db_)),
                    sqlite3_errcode(db_));
}

Statement::Statement(Connection& db, const char* sql) : db_(db), sql_(sql) {
  if (sqlite3_prepare_v2(db.handle(), sql, -1, &stmt_, nullptr) != SQLITE_OK) {
    db.fail("preparing '" + sql_ + "'");
  }
}

Statement::~Statement() { sqlite3_finalize(stmt_); }

Statement& Statement::bind_int(int index, int64_t value) {
  if (sqlite3_bind_int64(stmt_, index, value) != SQLITE_OK) db_.fail("binding a parameter");
  return *this;
}

Statement& Statement::bind_double(int index, double value) {
  if (sqlite3_bind_double(stmt_, index, value) != SQLITE_OK) db_.fail("binding a parameter");
  return *this;
}

Statement& Statement::bind_text(int index, const std::string& value) {
  if (sqlite3_bind_text(stmt_, index, value.data(), static_cast<int>(value.size()), SQLITE_TRANSIENT) !=
      SQLITE_OK) {
    db_.fail("binding a parameter");
  }
  return *this;
}

Statement& Statement::bind_optional_int(int index, const std::optional<int64_t>& value) {
  if (value) return bind_int(index, *value);
  if (sqlite3_bind_null(stmt_, index) != SQLITE_OK) db_.fail("binding a parameter");
  return *this;
}

bool Statement::step() {
  const int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  db_.fail("running '" + sql_ + "'");
}

bool Statement::column_is_null(int column) const {
  return sqlite3_column_type(stmt_, column) == SQLITE_NULL;
}

int64_t Statement::column_int(int column) const { return sqlite3_column_int64(stmt_, column); }

double Statement::column_double(int column) const { return sqlite3_column_double(stmt_, column); }

std::string Statement::column_text(int column) const {
  const auto* text = sqlite3_column_text(stmt_, column);
  if (!text) return "";
  return std::string(reinterpret_cast<const char*>(text), sqlite3_column_bytes(stmt_, column));
}

std::optional<int64_t> Statement::column_optional_int(int column) const {
  if (column_is_null(column)) return std::nullopt;
  return column_int(column);
}

Transaction::Transaction(Connection& db) : db_(db) { db_.exec("BEGIN IMMEDIATE"); }

Transaction::~Transaction() {
  // ROLLBACK fails only when no transaction is active any more: SQLite rolls back on its
  // own after errors such as SQLITE_FULL or SQLITE_IOERR, which leaves nothing to undo.
  if (open_) sqlite3_exec(db_.handle(), "ROLLBACK", nullptr, nullptr, nullptr);
}

void Transaction::commit() {
  db_.exec("COMMIT");
  open_ = false;
}

}  // namespace nee::db
