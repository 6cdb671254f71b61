// Schema v3 (records.confirmed_us): a v2 file migrates with its rows unconfirmed, a
// confirmed time ranks a record in place of its first median in every ranking query, and
// a record that fails its re-measurement can no longer be best.
#include <cmath>
#include <limits>
#include <string>

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
using testing_support::TempDir;

TEST(TuningDatabaseSchemaV3, V2FileMigratesWithItsRecordsUnconfirmed) {
  TempDir dir;
  const std::string path = dir.file("v2.db");
  const Workload w = matmul_workload_from_shape("8x8x8");
  const Target t = make_target();
  {
    db::Connection c(path);
    ASSERT_EQ(db::migrate(c, {db::migrations()[0], db::migrations()[1]}), 2);
    ASSERT_EQ(c.query_int("PRAGMA user_version"), 2);
    c.exec(R"sql(INSERT INTO targets (key, halide, fingerprint_json, fingerprint_hash, cpu_model, cores,
                   l1d_bytes, l2_bytes, l3_bytes, device) VALUES ('k', 'h', '{}', 'x', 'c', 1, 1, 1, 1, ''))sql");
    c.exec("INSERT INTO workloads (key, hash, op, json) VALUES ('w', 'h', 'matmul', '{}')");
    c.exec(R"sql(INSERT INTO records (workload_id, target_id, schedule_json, status, median_us, min_us, stddev_us,
                   repeats, max_abs_error, error, strategy, trial, parent_record, created_at, nee_version,
                   halide_version, predicted_us)
                 VALUES (1, 1, '{}', 'ok', 12.5, 12.0, 0.1, 5, 0, '', 'random', 3, NULL,
                         '2026-01-01T00:00:00Z', '0.1.0', '14.0.0', 11.0))sql");
  }
  {
    TuningDatabase db(path);
    EXPECT_EQ(db.schema_version(), TuningDatabase::latest_schema_version());
  }
  db::Connection c(path);
  EXPECT_EQ(c.query_int("SELECT count(*) FROM records WHERE confirmed_us IS NULL AND median_us = 12.5"), 1);
  TuningDatabase db(path);
  const int64_t id = db.add_record(make_record(w, t, 1, 10.0));
  const std::optional<TuningRecord> best = db.best(w, t);
  ASSERT_TRUE(best);
  EXPECT_EQ(best->id, id);
  EXPECT_FALSE(best->confirmed_us);
  EXPECT_EQ(best->ranked_us(), 10.0);
}

TEST(TuningDatabaseSchemaV3, ConfirmedTimeRanksInPlaceOfTheFirstMedian) {
  TempDir dir;
  TuningDatabase db(dir.file("t.db"));
  const Workload w = matmul_workload_from_shape("8x8x8");
  const Target t = make_target();
  const int64_t lucky = db.add_record(make_record(w, t, 1, 5.0));   // a lucky first sample
  const int64_t steady = db.add_record(make_record(w, t, 2, 8.0));
  const int64_t slow = db.add_record(make_record(w, t, 3, 20.0));  // never re-measured
  ASSERT_EQ(db.best(w, t)->id, lucky);

  db.set_confirmed_us(lucky, 12.0);
  db.set_confirmed_us(steady, 9.0);
  const std::optional<TuningRecord> best = db.best(w, t);
  ASSERT_TRUE(best);
  EXPECT_EQ(best->id, steady);
  EXPECT_EQ(*best->confirmed_us, 9.0);
  EXPECT_EQ(best->result.median_us, 8.0) << "the first measurement is kept";
  const std::vector<TuningRecord> top = db.top_k(w, t, 3);
  ASSERT_EQ(top.size(), 3u);
  EXPECT_EQ(top[0].id, steady);
  EXPECT_EQ(top[1].id, lucky);
  EXPECT_EQ(top[2].id, slow);
  const std::vector<TuningDatabase::WorkloadSummary> summaries = db.workloads(t);
  ASSERT_EQ(summaries.size(), 1u);
  EXPECT_EQ(*summaries[0].best_us, 9.0);

  // Pruning keeps the records that rank best.
  const std::vector<TuningRecord> removed = db.prune_keep_top_k(1);
  ASSERT_EQ(removed.size(), 2u);
  EXPECT_EQ(db.all_records().front().id, steady);
}

TEST(TuningDatabaseSchemaV3, UnconfirmedSearchPicksRankAfterEveryOtherRecord) {
  TempDir dir;
  TuningDatabase db(dir.file("t.db"));
  const Workload w = matmul_workload_from_shape("8x8x8");
  const Target t = make_target();
  TuningRecord pick = make_record(w, t, 1, 5.0);
  pick.strategy = "evolutionary";
  const int64_t lucky_pick = db.add_record(pick);
  TuningRecord baseline = make_record(w, t, 2, 9.0);
  baseline.strategy = "adams2019";
  const int64_t adams = db.add_record(baseline);
  TuningRecord first = make_record(w, t, 3, 11.0);
  first.strategy = "default";
  const int64_t default_point = db.add_record(first);
  // One sample of the baseline beats the fastest of many samples of the search.
  EXPECT_EQ(db.best(w, t)->id, adams);
  const std::vector<TuningRecord> top = db.top_k(w, t, 3);
  ASSERT_EQ(top.size(), 3u);
  EXPECT_EQ(top[1].id, default_point);
  EXPECT_EQ(top[2].id, lucky_pick);
  // Re-measured, the pick competes by its new time.
  db.set_confirmed_us(lucky_pick, 8.0);
  EXPECT_EQ(db.best(w, t)->id, lucky_pick);
  db.set_confirmed_us(lucky_pick, 10.0);
  EXPECT_EQ(db.best(w, t)->id, adams);
  EXPECT_EQ(*db.workloads(t).front().best_us, 9.0);
}

TEST(TuningDatabaseSchemaV3, FailedReMeasurementTakesTheRecordOutOfTheRanking) {
  TempDir dir;
  TuningDatabase db(dir.file("t.db"));
  const Workload w = matmul_workload_from_shape("8x8x8");
  const Target t = make_target();
  const int64_t flaky = db.add_record(make_record(w, t, 1, 5.0));
  const int64_t correct = db.add_record(make_record(w, t, 2, 8.0));
  db.set_confirmed_us(flaky, 5.5);
  MeasureResult failure;
  failure.status = MeasureStatus::wrong_result;
  failure.error = "max abs error 0.5 at element 3";
  db.set_failed_on_recheck(flaky, failure);
  ASSERT_EQ(db.best(w, t)->id, correct);
  const std::vector<TuningRecord> history = db.history(w, t);
  EXPECT_EQ(history[0].result.status, MeasureStatus::wrong_result);
  EXPECT_EQ(history[0].result.error, "on re-measurement: max abs error 0.5 at element 3");
  EXPECT_FALSE(history[0].confirmed_us);
  EXPECT_EQ(history[0].result.median_us, 5.0);
}

TEST(TuningDatabaseSchemaV3, BadConfirmationsAreRefusedAndChangeNothing) {
  TempDir dir;
  TuningDatabase db(dir.file("t.db"));
  const Workload w = matmul_workload_from_shape("8x8x8");
  const Target t = make_target();
  const int64_t id = db.add_record(make_record(w, t, 1, 5.0));
  EXPECT_THROW(db.set_confirmed_us(id + 1, 4.0), Error);
  EXPECT_THROW(db.set_confirmed_us(id, std::numeric_limits<double>::quiet_NaN()), Error);
  EXPECT_THROW(db.set_confirmed_us(id, 0.0), Error);
  MeasureResult not_a_failure;
  not_a_failure.status = MeasureStatus::ok;
  EXPECT_THROW(db.set_failed_on_recheck(id, not_a_failure), Error);
  const std::optional<TuningRecord> best = db.best(w, t);
  ASSERT_TRUE(best);
  EXPECT_FALSE(best->confirmed_us);
  EXPECT_EQ(best->result.status, MeasureStatus::ok);
}

TEST(TuningDatabaseSchemaV3, ConfirmedTimeTravelsWithAddedRecords) {
  TempDir dir;
  TuningDatabase db(dir.file("t.db"));
  const Workload w = matmul_workload_from_shape("8x8x8");
  const Target t = make_target();
  TuningRecord r = make_record(w, t, 1, 5.0);
  r.confirmed_us = 6.5;
  db.add_record(r);
  EXPECT_EQ(*db.best(w, t)->confirmed_us, 6.5);
  r.confirmed_us = std::numeric_limits<double>::infinity();
  EXPECT_THROW(db.add_record(r), Error);
  EXPECT_EQ(db.all_records().size(), 1u);
}

}  // namespace
}  // namespace nee
