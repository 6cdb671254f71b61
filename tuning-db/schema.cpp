#include "tuning-db/schema.h"

#include <sqlite3.h>

#include <fmt/format.h>

namespace nee::db {

namespace {

void create_v1(Connection& db) {
  db.exec(R"sql(
    CREATE TABLE targets (
      id INTEGER PRIMARY KEY,
      key TEXT NOT NULL UNIQUE,
      halide TEXT NOT NULL,
      fingerprint_json TEXT NOT NULL,
      fingerprint_hash TEXT NOT NULL,
      cpu_model TEXT NOT NULL,
      cores INTEGER NOT NULL,
      l1d_bytes INTEGER NOT NULL,
      l2_bytes INTEGER NOT NULL,
      l3_bytes INTEGER NOT NULL,
      device TEXT NOT NULL
    );
    CREATE TABLE workloads (
      id INTEGER PRIMARY KEY,
      key TEXT NOT NULL UNIQUE,
      hash TEXT NOT NULL,
      op TEXT NOT NULL,
      json TEXT NOT NULL
    );
    -- AUTOINCREMENT: parent_record points at record ids, so an id is never reused,
    -- even after the newest records are deleted.
    CREATE TABLE records (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      workload_id INTEGER NOT NULL REFERENCES workloads(id),
      target_id INTEGER NOT NULL REFERENCES targets(id),
      schedule_json TEXT NOT NULL,
      status TEXT NOT NULL,
      median_us REAL NOT NULL,
      min_us REAL NOT NULL,
      stddev_us REAL NOT NULL,
      repeats INTEGER NOT NULL,
      max_abs_error REAL NOT NULL,
      error TEXT NOT NULL,
      strategy TEXT NOT NULL,
      trial INTEGER NOT NULL,
      parent_record INTEGER,
      created_at TEXT NOT NULL,
      nee_version TEXT NOT NULL,
      halide_version TEXT NOT NULL
    );
    -- Serves best/top_k (ok records of one workload and target by median) and, by its
    -- prefix, history and contains.
    CREATE INDEX records_by_workload_target ON records(workload_id, target_id, status, median_us);
  )sql");
}

// The cost model's prediction for the point when a model-guided search proposed it;
// NULL for every other record (those of v1 files included), so predictions can be
// compared with what was measured.
void add_predicted_us(Connection& db) { db.exec("ALTER TABLE records ADD COLUMN predicted_us REAL"); }

// The median of the interleaved re-measurement that confirmed a record at the end of a
// tuning run; it ranks the record in place of median_us. NULL for records never
// re-measured (those of v1 and v2 files included).
void add_confirmed_us(Connection& db) { db.exec("ALTER TABLE records ADD COLUMN confirmed_us REAL"); }

// The cache state a target's times were taken in (Target::cache); every record of v1-v3
// files was timed warm.
void add_target_cache(Connection& db) { db.exec("ALTER TABLE targets ADD COLUMN cache TEXT NOT NULL DEFAULT 'warm'"); }

// The major version of the Halide that compiled a target's kernels (Target::halide_major);
// every record of v1-v4 files was compiled by Halide 14.
void add_target_halide_major(Connection& db) {
  db.exec("ALTER TABLE targets ADD COLUMN halide_major INTEGER NOT NULL DEFAULT 14");
}

// A schedule a tuner is measuring right now, so that other tuners on the same file skip
// it (TuningDatabase::claim). The owner is a process (host, boot, pid and start time, so
// that a reused pid is not mistaken for it) and one of its connections; claimed_at, in
// Unix seconds, lets a claim of another host expire. Keyed by the text keys, so a claim
// creates no target or workload row.
void add_claims(Connection& db) {
  db.exec(R"sql(
    CREATE TABLE claims (
      workload_key TEXT NOT NULL,
      target_key TEXT NOT NULL,
      schedule_json TEXT NOT NULL,
      host TEXT NOT NULL,
      boot_id TEXT NOT NULL,
      pid INTEGER NOT NULL,
      process_start INTEGER NOT NULL,
      connection INTEGER NOT NULL,
      claimed_at REAL NOT NULL,
      PRIMARY KEY (workload_key, target_key, schedule_json)
    )
  )sql");
}

// A record's kernel timed in a whole-model run against its default schedule's
// (TuningRecord::in_model); NULL for records never timed in a model (those of v1-v6 files).
void add_in_model_times(Connection& db) {
  db.exec("ALTER TABLE records ADD COLUMN in_model_us REAL");
  db.exec("ALTER TABLE records ADD COLUMN in_model_default_us REAL");
}

}  // namespace

const std::vector<Migration>& migrations() {
  static const std::vector<Migration> list = {
      {1, "targets, workloads and records", create_v1},
      {2, "records.predicted_us", add_predicted_us},
      {3, "records.confirmed_us", add_confirmed_us},
      {4, "targets.cache", add_target_cache},
      {5, "targets.halide_major", add_target_halide_major},
      {6, "claims of schedules being measured", add_claims},
      {7, "records.in_model_us and in_model_default_us", add_in_model_times},
  };
  return list;
}

int latest_schema_version() { return migrations().back().version; }

int check_database(Connection& db, int latest) {
  int64_t application_id = 0, version = 0, objects = 0;
  try {
    // One statement, so one snapshot: read one by one, a file that another process
    // initialized between the reads looked like another application's (no id, but
    // tables), which failed one of five tuners started together on a new file.
    Statement identity(db, R"sql(
      SELECT (SELECT application_id FROM pragma_application_id()),
             (SELECT user_version FROM pragma_user_version()),
             (SELECT count(*) FROM sqlite_master)
    )sql");
    identity.step();
    application_id = identity.column_int(0);
    version = identity.column_int(1);
    objects = identity.column_int(2);
  } catch (const SqliteError& e) {
    if (e.code() == SQLITE_NOTADB) {
      throw Error(fmt::format("tuning database {}: the file is not a SQLite database; refusing to use it "
                              "(point NEE_DB at another file or move this one away)",
                              db.path()));
    }
    throw;
  }
  if (application_id == 0 && version == 0 && objects == 0) return 0;
  if (application_id != kApplicationId) {
    throw Error(fmt::format(
        "tuning database {}: the file is a SQLite database of another application (application_id "
        "{:#010x}, NEE's is {:#010x}); refusing to use it",
        db.path(), static_cast<uint32_t>(application_id), static_cast<uint32_t>(kApplicationId)));
  }
  if (version < 0) {
    throw Error(fmt::format("tuning database {}: invalid schema version {}", db.path(), version));
  }
  if (version > latest) {
    throw Error(fmt::format("tuning database {}: created by a newer NEE; schema {}, this build reads up to {}",
                            db.path(), version, latest));
  }
  return static_cast<int>(version);
}

int migrate(Connection& db, const std::vector<Migration>& list) {
  for (size_t i = 0; i < list.size(); ++i) {
    if (list[i].version != static_cast<int>(i) + 1) {
      throw Error(fmt::format("tuning database migrations are misnumbered: element {} is version {}", i,
                              list[i].version));
    }
  }
  const int latest = static_cast<int>(list.size());
  Transaction transaction(db);
  // Read again under the write lock: another process may have migrated the file since
  // check_database looked at it.
  const int from = check_database(db, latest);
  if (from == latest) return latest;
  for (const Migration& m : list) {
    if (m.version <= from) continue;
    try {
      m.apply(db);
    } catch (const Error& e) {
      throw Error(fmt::format("tuning database {}: migration to schema {} ({}) failed: {}", db.path(),
                              m.version, m.summary, e.what()));
    }
  }
  // PRAGMA takes no bound parameters; both values are this build's own integers.
  db.exec(fmt::format("PRAGMA application_id = {}", kApplicationId));
  db.exec(fmt::format("PRAGMA user_version = {}", latest));
  transaction.commit();
  return latest;
}

}  // namespace nee::db
