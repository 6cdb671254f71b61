#include "tuning-db/sqlite.h"

#include <sqlite3.h>

#include <filesystem>

#include <fmt/format.h>

namespace nee::db {

namespace {

// A file: URI naming `path`; SQLite reads %HH escapes in it, so '%', '?' and '#' (which
// would start an escape, the query or a fragment) are escaped.
std::string file_uri(const std::string& path, const char* query) {
  std::string uri = "file:";
  for (const char c : std::filesystem::absolute(path).string()) {
    if (c == '%' || c == '?' || c == '#') {
      uri += fmt::format("%{:02X}", static_cast<unsigned char>(c));
    } else {
      uri += c;
    }
  }
  return uri + "?" + query;
}

}  // namespace

Connection::Connection(const std::string& path, OpenMode mode) : path_(path) {
  switch (mode) {
    case OpenMode::read_write:
      open(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
      break;
    case OpenMode::read_only:
      open(file_uri(path, "mode=ro"), SQLITE_OPEN_READONLY | SQLITE_OPEN_URI);
      break;
    case OpenMode::immutable:
      open(file_uri(path, "immutable=1"), SQLITE_OPEN_READONLY | SQLITE_OPEN_URI);
      break;
  }
}

void Connection::open(const std::string& name, int flags) {
  const int rc = sqlite3_open_v2(name.c_str(), &db_, flags, nullptr);
  if (rc != SQLITE_OK) {
    // sqlite3_open_v2 allocates a handle even on failure; it carries the message.
    const std::string message = db_ ? sqlite3_errmsg(db_) : sqlite3_errstr(rc);
    sqlite3_close(db_);
    db_ = nullptr;
    throw SqliteError(fmt::format("tuning database {}: cannot open: {}", path_, message), rc);
  }
  sqlite3_extended_result_codes(db_, 0);
}

std::unique_ptr<Connection> Connection::memory_copy(Connection& source) {
  std::unique_ptr<Connection> copy(new Connection());
  copy->path_ = source.path_;
  copy->open(":memory:", SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
  sqlite3_backup* backup = sqlite3_backup_init(copy->db_, "main", source.db_, "main");
  if (!backup) copy->fail("copying the file into memory");
  sqlite3_backup_step(backup, -1);
  if (sqlite3_backup_finish(backup) != SQLITE_OK) copy->fail("copying the file into memory");
  return copy;
}

bool Connection::read_only() const { return sqlite3_db_readonly(db_, "main") == 1; }

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

Transaction::Transaction(Connection& db) : db_(db), nested_(sqlite3_get_autocommit(db.handle()) == 0) {
  db_.exec(nested_ ? "SAVEPOINT nee_nested" : "BEGIN IMMEDIATE");
}

Transaction::~Transaction() {
  // ROLLBACK fails only when no transaction is active any more: SQLite rolls back on its
  // own after errors such as SQLITE_FULL or SQLITE_IOERR, which leaves nothing to undo.
  // A savepoint's name is taken by the innermost one that bears it.
  if (open_) {
    sqlite3_exec(db_.handle(), nested_ ? "ROLLBACK TO nee_nested; RELEASE nee_nested" : "ROLLBACK", nullptr, nullptr,
                 nullptr);
  }
}

void Transaction::commit() {
  db_.exec(nested_ ? "RELEASE nee_nested" : "COMMIT");
  open_ = false;
}

}  // namespace nee::db
