#pragma once
#include <cstdint>
#include <vector>

#include "tuning-db/sqlite.h"

namespace nee::db {

// PRAGMA application_id of every NEE tuning database: the ASCII bytes "NEEt". It tells
// a NEE file from any other SQLite file (file(1) and sqlite3 show it too).
inline constexpr int32_t kApplicationId = 0x4E454574;

// One step of the schema. Version N's apply() turns a version N-1 database into a
// version N one; it runs inside the migration transaction, so it must not BEGIN/COMMIT.
// The schema version is kept in PRAGMA user_version; 0 is an empty file.
struct Migration {
  int version;
  const char* summary;
  void (*apply)(Connection& db);
};

// This build's migrations, in order: element i is version i + 1. Adding a schema
// version is adding one function and one element here.
const std::vector<Migration>& migrations();
int latest_schema_version();

// Reads the file's identity and returns its schema version (0 for an empty file that
// NEE may initialize). Throws nee::Error when the file is not a SQLite database, is
// another application's, or has a schema newer than `latest`. Only reads the file.
int check_database(Connection& db, int latest);

// Applies every migration in `list` newer than the file's version, sets the
// application id and user_version, all in one transaction: the file is either left
// as it was or reaches list.back().version. Returns the version reached.
int migrate(Connection& db, const std::vector<Migration>& list);

}  // namespace nee::db
