// Schema v2 (records.predicted_us) from a v1 file, and the record-level queries the
// `nee-tune db` commands use: all_records, find_workload, contains_record, prune.
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

TEST(TuningDatabaseSchemaV2, V1FileMigratesAndKeepsItsRows) {
  TempDir dir;
  const std::string path = dir.file("v1.db");
  const Workload w = matmul_workload_from_shape("8x8x8");
  const Target t = make_target();
  ASSERT_NO_FATAL_FAILURE(testing_support::write_v1_file(path, t, w, "random", 3));
  TuningDatabase db(path);
  EXPECT_EQ(db.schema_version(), TuningDatabase::latest_schema_version());
  const std::vector<TuningRecord> history = db.history(w, t);
  ASSERT_EQ(history.size(), 1u);
  EXPECT_EQ(history[0].result.median_us, 12.5);
  EXPECT_EQ(history[0].trial, 3);
  EXPECT_EQ(history[0].created_at, "2026-01-01T00:00:00Z");
  EXPECT_FALSE(history[0].predicted_us);

  TuningRecord predicted = make_record(w, t, 2, 10.0);
  predicted.predicted_us = 9.5;
  db.add_record(predicted);
  const std::optional<TuningRecord> best = db.best(w, t);
  ASSERT_TRUE(best);
  ASSERT_TRUE(best->predicted_us);
  EXPECT_EQ(*best->predicted_us, 9.5);
}

TEST(TuningDatabaseQueries, AllRecordsFindWorkloadAndContainsRecord) {
  TempDir dir;
  TuningDatabase db(dir.file("tuning.db"));
  const Workload a = matmul_workload_from_shape("8x8x8"), b = matmul_workload_from_shape("16x16x16");
  const Target here = make_target(), there = make_target("Other CPU");
  TuningRecord r = make_record(a, here, 1, 5.0);
  r.created_at = "2026-01-01T00:00:00Z";
  db.add_record(r);
  db.add_record(make_record(b, there, 2, 7.0));
  const std::vector<TuningRecord> all = db.all_records();
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].workload.key(), a.key());
  EXPECT_EQ(all[1].target.key(), there.key());
  EXPECT_TRUE(db.contains_record(r));
  TuningRecord other_time = r;
  other_time.created_at = "2026-01-02T00:00:00Z";
  EXPECT_FALSE(db.contains_record(other_time));
  ASSERT_TRUE(db.find_workload(b.hash().substr(0, 6)));
  EXPECT_EQ(db.find_workload(b.hash())->key(), b.key());
  EXPECT_FALSE(db.find_workload("zzzz"));
  EXPECT_FALSE(db.find_workload(""));
}

TEST(TuningDatabasePrune, FailedOlderThanRemovesExactlyThose) {
  TempDir dir;
  TuningDatabase db(dir.file("tuning.db"));
  const Workload w = matmul_workload_from_shape("8x8x8");
  const Target t = make_target();
  TuningRecord old_failed = make_record(w, t, 1, 0.0, MeasureStatus::crash);
  old_failed.created_at = "2020-01-01T00:00:00Z";
  TuningRecord old_ok = make_record(w, t, 2, 3.0);
  old_ok.created_at = "2020-01-01T00:00:00Z";
  const TuningRecord new_failed = make_record(w, t, 3, 0.0, MeasureStatus::timeout);  // created now
  const int64_t old_failed_id = db.add_record(old_failed);
  db.add_record(old_ok);
  db.add_record(new_failed);
  const std::vector<TuningRecord> removed = db.prune_failed_older_than(30);
  ASSERT_EQ(removed.size(), 1u);
  EXPECT_EQ(removed[0].id, old_failed_id);
  EXPECT_EQ(db.history(w, t).size(), 2u);
  EXPECT_TRUE(db.prune_failed_older_than(30).empty());
  EXPECT_THROW(db.prune_failed_older_than(-1), Error);
}

TEST(TuningDatabasePrune, KeepTopKPerWorkloadAndTarget) {
  TempDir dir;
  TuningDatabase db(dir.file("tuning.db"));
  const Workload a = matmul_workload_from_shape("8x8x8"), b = matmul_workload_from_shape("16x16x16");
  const Target here = make_target(), there = make_target("Other CPU");
  for (int i = 1; i <= 5; ++i) db.add_record(make_record(a, here, i, 10.0 - i));  // fastest: knob 5, 4
  db.add_record(make_record(a, here, 9, 0.0, MeasureStatus::build_error));
  db.add_record(make_record(a, there, 1, 50.0));
  db.add_record(make_record(b, here, 1, 20.0));
  const std::vector<TuningRecord> removed = db.prune_keep_top_k(2);
  ASSERT_EQ(removed.size(), 4u);  // a/here: knobs 1, 2, 3 and the build error
  for (const TuningRecord& r : removed) {
    EXPECT_EQ(r.workload.key(), a.key());
    EXPECT_EQ(r.target.key(), here.key());
  }
  const std::vector<TuningRecord> kept = db.history(a, here);
  ASSERT_EQ(kept.size(), 2u);
  EXPECT_EQ(kept[0].config.at("nr"), 4);
  EXPECT_EQ(kept[1].config.at("nr"), 5);
  EXPECT_EQ(db.history(a, there).size(), 1u);
  EXPECT_EQ(db.history(b, here).size(), 1u);
  EXPECT_THROW(db.prune_keep_top_k(0), Error);
}

}  // namespace
}  // namespace nee
