#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/error.h"
#include "core/matmul_workload.h"
#include "tests/tuning-db/test_support.h"
#include "tuning-db/schema.h"
#include "tuning-db/sqlite.h"
#include "tuning-db/tuning_database.h"

namespace nee {
namespace {

using testing_support::make_record;
using testing_support::make_target;
using testing_support::read_bytes;
using testing_support::TempDir;

// Runs SQL on a plain sqlite3 connection, outside NEE's code.
void raw_exec(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  char* message = nullptr;
  const int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &message);
  EXPECT_EQ(rc, SQLITE_OK) << (message ? message : "");
  sqlite3_free(message);
  sqlite3_close(db);
}

int64_t raw_int(const std::string& path, const std::string& sql) {
  db::Connection c(path);
  return c.query_int(sql);
}

std::string raw_text(const std::string& path, const std::string& sql) {
  db::Connection c(path);
  db::Statement s(c, sql.c_str());
  EXPECT_TRUE(s.step()) << sql;
  return s.column_text(0);
}

// Names of the tables in the file, sorted, comma-separated.
std::string tables(const std::string& path) {
  return raw_text(path,
                  "SELECT coalesce(group_concat(name, ','), '') FROM (SELECT name FROM sqlite_master "
                  "WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name)");
}

// Opening `path` must throw nee::Error mentioning `expected`, and leave the file's
// bytes as they were.
void expect_refused(const std::string& path, const std::string& expected) {
  const std::string before = read_bytes(path);
  ASSERT_FALSE(before.empty());
  try {
    TuningDatabase db(path);
    ADD_FAILURE() << "opened " << path;
  } catch (const Error& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find(expected), std::string::npos) << message;
    EXPECT_NE(message.find(path), std::string::npos) << message;
  }
  EXPECT_EQ(read_bytes(path), before) << "the refused file was modified";
}

TEST(TuningDatabaseOpen, RefusesATextFile) {
  TempDir dir;
  const std::string path = dir.file("notes.db");
  {
    std::ofstream out(path);
    for (int i = 0; i < 200; ++i) out << "this is a text file, line " << i << "\n";
  }
  expect_refused(path, "not a SQLite database");
}

TEST(TuningDatabaseOpen, RefusesAnotherApplicationsDatabase) {
  TempDir dir;
  const std::string path = dir.file("other.db");
  raw_exec(path,
           "PRAGMA application_id = 305419896;"  // 0x12345678
           "CREATE TABLE photos (id INTEGER PRIMARY KEY, name TEXT);"
           "INSERT INTO photos (name) VALUES ('cat.jpg');");
  expect_refused(path, "another application");
  EXPECT_EQ(raw_int(path, "SELECT count(*) FROM photos"), 1);
}

TEST(TuningDatabaseOpen, RefusesADatabaseWithTablesAndNoApplicationId) {
  TempDir dir;
  const std::string path = dir.file("plain.db");
  raw_exec(path, "CREATE TABLE t (x); INSERT INTO t VALUES (1);");
  expect_refused(path, "another application");
}

TEST(TuningDatabaseOpen, RefusesANewerSchema) {
  TempDir dir;
  const std::string path = dir.file("tuning.db");
  const Workload w = matmul_workload_from_shape("8x8x8");
  {
    TuningDatabase db(path);
    db.add_record(make_record(w, make_target(), 1, 1.0));
  }
  const int newer = TuningDatabase::latest_schema_version() + 1;
  raw_exec(path, "PRAGMA user_version = " + std::to_string(newer));
  expect_refused(path, "created by a newer NEE; schema " + std::to_string(newer) +
                           ", this build reads up to " +
                           std::to_string(TuningDatabase::latest_schema_version()));
}

TEST(TuningDatabaseOpen, NewFileIsInitializedAtTheLatestSchema) {
  TempDir dir;
  const std::string path = dir.file("tuning.db");
  {
    TuningDatabase db(path);
    EXPECT_EQ(db.schema_version(), TuningDatabase::latest_schema_version());
  }
  EXPECT_EQ(raw_int(path, "PRAGMA application_id"), db::kApplicationId);
  EXPECT_EQ(raw_int(path, "PRAGMA user_version"), TuningDatabase::latest_schema_version());
  EXPECT_EQ(raw_text(path, "PRAGMA journal_mode"), "wal");
  EXPECT_EQ(tables(path), "claims,records,targets,workloads");
}

TEST(TuningDatabaseMigrate, MigrationsAreNumberedFromOne) {
  const std::vector<db::Migration>& list = db::migrations();
  ASSERT_FALSE(list.empty());
  for (size_t i = 0; i < list.size(); ++i) EXPECT_EQ(list[i].version, static_cast<int>(i) + 1);
  EXPECT_EQ(TuningDatabase::latest_schema_version(), list.back().version);
}

TEST(TuningDatabaseMigrate, EmptyFileIsMigratedFromVersionZero) {
  TempDir dir;
  const std::string path = dir.file("empty.db");
  std::ofstream(path).close();
  ASSERT_TRUE(read_bytes(path).empty());
  TuningDatabase db(path);
  EXPECT_EQ(db.schema_version(), TuningDatabase::latest_schema_version());
  EXPECT_EQ(raw_int(path, "PRAGMA user_version"), TuningDatabase::latest_schema_version());
  EXPECT_EQ(tables(path), "claims,records,targets,workloads");
}

TEST(TuningDatabaseMigrate, NeeFileAtVersionZeroIsMigrated) {
  TempDir dir;
  const std::string path = dir.file("v0.db");
  raw_exec(path, "PRAGMA application_id = " + std::to_string(db::kApplicationId));
  ASSERT_EQ(raw_int(path, "PRAGMA user_version"), 0);
  ASSERT_EQ(tables(path), "");
  TuningDatabase db(path);
  EXPECT_EQ(db.schema_version(), TuningDatabase::latest_schema_version());
  EXPECT_EQ(tables(path), "claims,records,targets,workloads");
  const Workload w = matmul_workload_from_shape("8x8x8");
  db.add_record(make_record(w, make_target(), 1, 1.0));
  EXPECT_EQ(db.history(w, make_target()).size(), 1u);
}

TEST(TuningDatabaseMigrate, LatestFileReopensUnchangedInSchema) {
  TempDir dir;
  const std::string path = dir.file("tuning.db");
  const Workload w = matmul_workload_from_shape("8x8x8");
  { TuningDatabase(path).add_record(make_record(w, make_target(), 1, 1.0)); }
  const std::string schema_before = raw_text(path, "SELECT group_concat(sql, ';') FROM sqlite_master");
  TuningDatabase db(path);
  EXPECT_EQ(db.schema_version(), TuningDatabase::latest_schema_version());
  EXPECT_EQ(raw_text(path, "SELECT group_concat(sql, ';') FROM sqlite_master"), schema_before);
  EXPECT_EQ(db.history(w, make_target()).size(), 1u);
}

// A hypothetical next schema, to run the migration runner over an existing file.
void add_notes_column(db::Connection& c) { c.exec("ALTER TABLE records ADD COLUMN notes TEXT"); }

void half_done_then_fail(db::Connection& c) {
  c.exec("CREATE TABLE half_done (x)");
  c.exec("INSERT INTO no_such_table VALUES (1)");
}

TEST(TuningDatabaseMigrate, RunnerAppliesOnlyNewerMigrations) {
  TempDir dir;
  const std::string path = dir.file("tuning.db");
  const Workload w = matmul_workload_from_shape("8x8x8");
  { TuningDatabase(path).add_record(make_record(w, make_target(), 1, 1.0)); }
  std::vector<db::Migration> list = db::migrations();
  list.push_back({static_cast<int>(list.size()) + 1, "records.notes", add_notes_column});
  {
    db::Connection c(path);
    EXPECT_EQ(db::migrate(c, list), static_cast<int>(list.size()));
    // The existing versions did not run again (they would fail on the existing tables),
    // and the new one ran.
    EXPECT_EQ(c.query_int("SELECT count(*) FROM records WHERE notes IS NULL"), 1);
    EXPECT_EQ(c.query_int("PRAGMA user_version"), static_cast<int64_t>(list.size()));
    // Already at the end of the list: nothing to do.
    EXPECT_EQ(db::migrate(c, list), static_cast<int>(list.size()));
  }
  // This build's list stops before it, so the file now counts as newer.
  EXPECT_THROW(TuningDatabase{path}, Error);
}

TEST(TuningDatabaseMigrate, FailedMigrationLeavesTheFileAsItWas) {
  TempDir dir;
  const std::string path = dir.file("tuning.db");
  const Workload w = matmul_workload_from_shape("8x8x8");
  { TuningDatabase(path).add_record(make_record(w, make_target(), 1, 1.0)); }
  std::vector<db::Migration> list = db::migrations();
  list.push_back({static_cast<int>(list.size()) + 1, "fails midway", half_done_then_fail});
  {
    db::Connection c(path);
    try {
      db::migrate(c, list);
      FAIL() << "the failing migration succeeded";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("fails midway"), std::string::npos) << e.what();
    }
  }
  EXPECT_EQ(raw_int(path, "PRAGMA user_version"), TuningDatabase::latest_schema_version());
  EXPECT_EQ(tables(path), "claims,records,targets,workloads");
  TuningDatabase db(path);
  EXPECT_EQ(db.history(w, make_target()).size(), 1u);
}

TEST(TuningDatabaseMigrate, RunnerRejectsAMisnumberedList) {
  TempDir dir;
  db::Connection c(dir.file("tuning.db"));
  std::vector<db::Migration> list = db::migrations();
  list.push_back({static_cast<int>(list.size()) + 2, "skips a number", add_notes_column});
  EXPECT_THROW(db::migrate(c, list), Error);
  EXPECT_EQ(c.query_int("PRAGMA user_version"), 0);
}

// Tuners started together on a new file: every one opens it. Reading the file's id, its
// version and its tables in three statements once let a process see another's finished
// initialization between them, as tables without NEE's id (2 failures in 200 opens by
// ten nee-tune processes at a time); and switching the file to WAL failed at once while
// another process read it (up to 7 of 8 processes in a round here).
TEST(TuningDatabaseOpen, ProcessesCreatingOneFileTogetherAllOpenIt) {
  TempDir dir;
  constexpr int kRounds = 20, kProcesses = 8;
  int failures = 0;
  for (int round = 0; round < kRounds; ++round) {
    const std::string path = dir.file("new-" + std::to_string(round) + ".db");
    int start[2];
    ASSERT_EQ(pipe(start), 0);
    std::vector<pid_t> children;
    for (int i = 0; i < kProcesses; ++i) {
      const pid_t pid = fork();
      if (pid == 0) {
        close(start[1]);
        char go;
        if (read(start[0], &go, 1) != 0) _exit(3);  // returns 0 when the parent closes its end
        try {
          TuningDatabase db(path);
          _exit(db.schema_version() == TuningDatabase::latest_schema_version() ? 0 : 1);
        } catch (const std::exception& e) {
          fprintf(stderr, "%s\n", e.what());
          _exit(2);
        }
      }
      children.push_back(pid);
    }
    close(start[0]);
    close(start[1]);  // all children start now
    for (const pid_t pid : children) {
      int status = 0;
      waitpid(pid, &status, 0);
      failures += !(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }
  }
  EXPECT_EQ(failures, 0);
}

}  // namespace
}  // namespace nee
