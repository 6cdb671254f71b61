#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "core/error.h"

struct sqlite3;
struct sqlite3_stmt;

namespace nee::db {

// A failure reported by SQLite. The message names the database file and carries
// sqlite3_errmsg; code is SQLite's primary result code (SQLITE_NOTADB, SQLITE_BUSY, ...).
class SqliteError : public Error {
 public:
  SqliteError(const std::string& message, int code) : Error(message), code_(code) {}
  int code() const { return code_; }

 private:
  int code_;
};

// How a connection opens its file.
enum class OpenMode {
  // Created (empty) if missing. SQLite reads a file the OS will not let it write, and
  // then refuses each write: read_only() tells.
  read_write,
  // Never written nor created (SQLITE_OPEN_READONLY through a mode=ro URI).
  read_only,
  // Read without locks and without the -shm index a WAL file needs (immutable=1): the
  // one way to read a WAL file in a folder this user cannot write, where SQLite cannot
  // make that index. A writer that changes the file meanwhile is not seen.
  immutable,
};

// One open connection to a database file. Opening is lazy in SQLite: its bytes are
// first read by the first statement.
class Connection {
 public:
  explicit Connection(const std::string& path, OpenMode mode = OpenMode::read_write);
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  // A copy in memory of everything `source` holds, through SQLite's backup API; its
  // messages name `source`'s file.
  static std::unique_ptr<Connection> memory_copy(Connection& source);

  sqlite3* handle() const { return db_; }
  const std::string& path() const { return path_; }
  // Whether writes will be refused: opened read-only, or a file the OS does not let
  // this process write.
  bool read_only() const;

  // Runs SQL that takes no parameters and returns no rows (pragmas, DDL, BEGIN/COMMIT).
  void exec(const std::string& sql);
  // Runs a single-value query such as "PRAGMA user_version".
  int64_t query_int(const std::string& sql);
  // Row id of the last row this connection inserted.
  int64_t last_insert_rowid() const;
  // Rows changed by this connection's last INSERT, UPDATE or DELETE.
  int64_t changes() const;

  // Throws SqliteError naming the file, `doing` and the connection's last error.
  [[noreturn]] void fail(const std::string& doing) const;

 private:
  Connection() = default;
  void open(const std::string& name, int flags);

  sqlite3* db_ = nullptr;
  std::string path_;
};

// A prepared statement. Parameters are 1-based, columns 0-based, as in SQLite.
class Statement {
 public:
  Statement(Connection& db, const char* sql);
  ~Statement();
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  Statement& bind_int(int index, int64_t value);
  Statement& bind_double(int index, double value);
  Statement& bind_text(int index, const std::string& value);
  Statement& bind_optional_int(int index, const std::optional<int64_t>& value);

  // Advances to the next row: true when a row is ready, false when the statement is done.
  bool step();

  bool column_is_null(int column) const;
  int64_t column_int(int column) const;
  double column_double(int column) const;
  std::string column_text(int column) const;
  std::optional<int64_t> column_optional_int(int column) const;

 private:
  Connection& db_;
  sqlite3_stmt* stmt_ = nullptr;
  std::string sql_;
};

// A write transaction, taken with BEGIN IMMEDIATE so that the write lock is held from
// the start: a second writer waits on busy_timeout instead of failing to upgrade a read
// lock midway. Rolled back unless commit() was reached. Inside another transaction it is
// a savepoint, so that what the outer one commits or undoes includes it.
class Transaction {
 public:
  explicit Transaction(Connection& db);
  ~Transaction();
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;

  void commit();

 private:
  Connection& db_;
  bool nested_;
  bool open_ = true;
};

}  // namespace nee::db
